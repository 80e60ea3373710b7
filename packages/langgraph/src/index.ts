/**
 * @packageDocumentation
 * Interlock as the approval layer of LangGraph and LangChain 1 agents (F56). Start with {@link interlockGraph}.
 */
export {
  interlockGraph,
  interruptOnEvery,
  InterlockGraph,
  type HitlDecision,
  type HitlRequest,
  type InterlockGraphOptions,
  type InterlockGraphOutcome,
  type InterruptibleGraph,
} from './interlock-graph.js';
export { exportThread, importThread } from './checkpoint-transfer.js';
/** The approval receipt of the call a tool is running (F63): forward it to the service it calls. */
export { currentReceipt } from '@interlock/core';
