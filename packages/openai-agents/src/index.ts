/**
 * @packageDocumentation
 * Interlock as the approval layer of the OpenAI Agents SDK (F56). Start with {@link interlockAgent}.
 */
export {
  interlockAgent,
  InterlockAgent,
  type AgentRunResult,
  type AgentToolPolicy,
  type InterlockAgentOptions,
  type InterlockRunOutcome,
} from './interlock-agent.js';
/** The approval receipt of the call a tool is running (F63): forward it to the service it calls. */
export { currentReceipt } from '@interlock/core';
