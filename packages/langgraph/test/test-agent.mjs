// The agent of the tests: a LangChain 1 agent (createAgent) whose tools interrupt through
// humanInTheLoopMiddleware and write what they ran to a ledger file, on a model served by
// the local chat-completions fixture. Each process has its own in-memory checkpointer: a
// paused thread reaches another process only through what Interlock stored.
import { appendFileSync } from 'node:fs';
import { ChatOpenAI } from '@langchain/openai';
import { MemorySaver } from '@langchain/langgraph';
import { createAgent, humanInTheLoopMiddleware, tool } from 'langchain';
import { z } from 'zod';

/** @param {{ baseURL: string, ledger: string }} options */
export function testAgent({ baseURL, ledger }) {
  const record = (name, args) => appendFileSync(ledger, `${JSON.stringify({ tool: name, args, pid: process.pid })}\n`);
  const tools = [
    tool(async (args) => (record('read_file', args), `contents of ${args.path}`), {
      name: 'read_file',
      description: 'Reads a file',
      schema: z.object({ path: z.string() }),
    }),
    tool(async (args) => (record('write_file', args), `wrote ${args.path}`), {
      name: 'write_file',
      description: 'Writes a file',
      schema: z.object({ path: z.string(), content: z.string() }),
    }),
    tool(async (args) => (record('bash', args), 'ran'), {
      name: 'bash',
      description: 'Runs a shell command',
      schema: z.object({ command: z.string() }),
    }),
  ];
  const checkpointer = new MemorySaver();
  const model = new ChatOpenAI({
    model: 'fixture-model',
    apiKey: 'test-key',
    maxRetries: 0,
    configuration: { baseURL },
  });
  const interruptOn = Object.fromEntries(
    tools.map((t) => [t.name, { allowedDecisions: ['approve', 'edit', 'reject'] }]),
  );
  const agent = createAgent({ model, tools, checkpointer, middleware: [humanInTheLoopMiddleware({ interruptOn })] });
  return { graph: agent.graph, checkpointer };
}

/** How Interlock sees the three tools, as the README declares them: no JSON Schema (the tools' own schemas check an edit). */
export const TOOL_POLICIES = {
  read_file: { category: 'read', riskLevel: 'LOW' },
  write_file: { category: 'write', riskLevel: 'MEDIUM', pathArgument: 'path' },
  bash: { category: 'command', riskLevel: 'HIGH', commandArgument: 'command' },
};
