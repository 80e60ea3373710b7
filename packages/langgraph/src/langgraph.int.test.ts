import { fileURLToPath } from 'node:url';
import { acrossProcesses } from '@interlock/testing-adapters';
import { expect } from 'vitest';
import { langGraphCases } from './__fixtures__/langgraph-cases.js';

acrossProcesses({
  describe: 'LangGraph (a LangChain 1 agent with humanInTheLoopMiddleware) under Interlock, across processes (F56)',
  it: 'pauses a write, survives the asking process being killed, and another process runs it once with the approver’s edit (F56, F19, F21, F40)',
  prefix: 'langgraph',
  agentProcess: fileURLToPath(new URL('../test/graph-process.mjs', import.meta.url)),
  expectEditSeen(messages) {
    // The edit replaces the call in the conversation: the model sees what ran (F19).
    const assistant = messages.find((message) => message.role === 'assistant') as
      { tool_calls?: { function: { name: string; arguments: string } }[] } | undefined;
    expect(
      assistant?.tool_calls?.map((call) => [call.function.name, JSON.parse(call.function.arguments)]),
    ).toContainEqual(['write_file', { path: 'notes.md', content: 'final' }]);
  },
});

// The current releases of LangGraph and LangChain (F56, F61).
langGraphCases('1');
