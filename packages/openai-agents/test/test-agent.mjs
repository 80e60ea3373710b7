// The agent of the tests: three tools that write what they were called with to a ledger
// file, and a model on the local chat-completions fixture. Used in the test process and in
// the child processes (agent-process.mjs), so every process continues the same agent.
import { appendFileSync } from 'node:fs';
import { Agent, OpenAIChatCompletionsModel, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';

setTracingDisabled(true);

/** @param {{ baseURL: string, ledger: string }} options */
export function testAgent({ baseURL, ledger }) {
  const record = (name, args) => appendFileSync(ledger, `${JSON.stringify({ tool: name, args, pid: process.pid })}\n`);
  const model = new OpenAIChatCompletionsModel(
    new OpenAI({ baseURL, apiKey: 'test-key', maxRetries: 0 }),
    'fixture-model',
  );
  return new Agent({
    name: 'notes-agent',
    instructions: 'You keep the notes.',
    model,
    tools: [
      tool({
        name: 'read_file',
        description: 'Reads a file',
        parameters: z.object({ path: z.string() }),
        execute: async (args) => (record('read_file', args), `contents of ${args.path}`),
      }),
      tool({
        name: 'write_file',
        description: 'Writes a file',
        parameters: z.object({ path: z.string(), content: z.string() }),
        execute: async (args) => (record('write_file', args), `wrote ${args.path}`),
      }),
      tool({
        name: 'bash',
        description: 'Runs a shell command',
        parameters: z.object({ command: z.string() }),
        execute: async (args) => (record('bash', args), 'ran'),
      }),
    ],
  });
}

/** How Interlock sees the three tools. */
export const TOOL_POLICIES = {
  read_file: { category: 'read', riskLevel: 'LOW' },
  write_file: { category: 'write', riskLevel: 'MEDIUM', pathArgument: 'path' },
  bash: { category: 'command', riskLevel: 'HIGH', commandArgument: 'command' },
};
