import { fileURLToPath } from 'node:url';
import { acrossProcesses } from '@interlock/testing-adapters';
import { expect } from 'vitest';
import { openAiAgentsCases } from './__fixtures__/openai-agents-cases.js';

acrossProcesses({
  describe: 'the OpenAI Agents SDK under Interlock, across processes (F56)',
  it: 'pauses a write, survives the asking process being killed, and another process runs it once with the approver’s edit (F56, F21, F40)',
  prefix: 'openai-agents',
  agentProcess: fileURLToPath(new URL('../test/agent-process.mjs', import.meta.url)),
  expectEditSeen(messages) {
    const toolMessages = messages.filter((message) => message.role === 'tool');
    expect(JSON.stringify(toolMessages)).toContain('The approver edited the arguments');
  },
});

// The top of the peer range: the current release, with openai 7 (F56, F61).
openAiAgentsCases('0.20');
