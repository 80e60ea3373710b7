import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chunk,
  startChatCompletionsServer,
  toolCallDelta,
  type ChatCompletionsServer,
} from '../__fixtures__/chat-completions-server.js';
import { startMessagesServer, streamedMessage, type MessagesServer } from '../__fixtures__/messages-server.js';
import { approve, createInterlock, defineHandler, loadProjectConfig, type UserInteractionRequest } from '../index.js';

/*
 * Issue 16: the examples' two notes agents — examples/workflows/notes-openai.toml on an
 * OpenAI-format server and notes-anthropic.toml on an Anthropic-format one — run with the
 * same tools and the same approvals from examples/interlock.toml (pointed at local servers
 * that speak each protocol, streaming included).
 */
const EXAMPLES = fileURLToPath(new URL('../../../../examples/', import.meta.url));

let directory: string;
let openai: ChatCompletionsServer;
let messages: MessagesServer;
let config: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'interlock-providers-'));
  [openai, messages] = await Promise.all([startChatCompletionsServer(), startMessagesServer()]);
  // The example project file as checked in, with its models pointed at the local servers and its store in the temporary directory.
  const example = await readFile(join(EXAMPLES, 'interlock.toml'), 'utf8');
  config = join(directory, 'interlock.toml');
  await writeFile(
    config,
    example
      .replace('path = "../.interlock/interlock.db"', 'path = "interlock.db"')
      .replace('workflows = ["workflows"]', `workflows = [${JSON.stringify(join(EXAMPLES, 'workflows'))}]`)
      .replace('model = "gpt-4o-mini"', `model = "gpt-4o-mini"\nbaseUrl = "${openai.baseURL}"`)
      .replace('model = "claude-sonnet-4-5"', `model = "claude-sonnet-4-5"\nbaseUrl = "${messages.baseURL}"`),
  );
  await writeFile(join(directory, 'README.md'), '# Interlock\nPeople approve what agents do.\n');
  process.env['OPENAI_API_KEY'] = 'sk-openai-test';
  process.env['ANTHROPIC_API_KEY'] = 'sk-ant-test';
});
afterAll(async () => {
  await Promise.all([openai.close(), messages.close()]);
  await rm(directory, { recursive: true, force: true });
});

/** Runs one example workflow from the project file; every approval is answered yes and recorded. */
async function runExample(file: string) {
  const asked: UserInteractionRequest[] = [];
  const interlock = await createInterlock({
    config: await loadProjectConfig(config),
    workspaceRoot: directory,
    handlers: {
      cli: defineHandler({ handle: async (request: UserInteractionRequest) => (asked.push(request), approve()) }),
    },
  });
  try {
    const workflow = await interlock.loadWorkflow(join(EXAMPLES, 'workflows', file));
    const outcome = await (await interlock.start(workflow, { channel: 'cli' })).done();
    return { outcome, asked: asked.map((request) => [request.toolApproval?.toolName, request.toolApproval?.rule]) };
  } finally {
    await interlock.close();
  }
}

describe('the notes agents of examples/ on both model formats (issue 16)', () => {
  it('runs notes-openai.toml on an OpenAI-format server: the read runs, the write asks', async () => {
    const call = (id: string, name: string, args: string) => ({
      kind: 'stream' as const,
      chunks: [chunk(toolCallDelta(0, { id, name, arguments: args })), chunk({}, 'tool_calls')],
    });
    openai.enqueue(
      call('c1', 'read_file', '{"path":"README.md"}'),
      call('c2', 'write_file', '{"path":"NOTES-openai.md","content":"People approve what agents do."}'),
      { kind: 'stream', chunks: [chunk({ content: 'Wrote NOTES-openai.md.' }), chunk({}, 'stop')] },
    );
    const run = await runExample('notes-openai.toml');
    expect(run.outcome).toMatchObject({ status: 'completed', output: 'Wrote NOTES-openai.md.' });
    expect(run.asked).toEqual([['write_file', 'ask:risk:MEDIUM']]);
    expect(await readFile(join(directory, 'NOTES-openai.md'), 'utf8')).toBe('People approve what agents do.');
    // The tool results went back in OpenAI's format.
    const last = openai.requests.at(-1)?.body as {
      messages: Array<{ role: string; tool_call_id?: string; content?: string }>;
    };
    expect(last.messages.filter((message) => message.role === 'tool').map((message) => message.tool_call_id)).toEqual([
      'c1',
      'c2',
    ]);
    expect(openai.requests[0]?.headers.authorization).toBe('Bearer sk-openai-test');
  });

  it('runs notes-anthropic.toml on an Anthropic-format server with the same tools and approvals', async () => {
    messages.enqueue(streamedMessage('', [{ id: 'toolu_1', name: 'read_file', json: ['{"path":', '"README.md"}'] }]));
    messages.enqueue(
      streamedMessage('', [
        {
          id: 'toolu_2',
          name: 'write_file',
          json: ['{"path":"NOTES-anthropic.md",', '"content":"People approve what agents do."}'],
        },
      ]),
    );
    messages.enqueue(streamedMessage('Wrote NOTES-anthropic.md.'));
    const run = await runExample('notes-anthropic.toml');
    expect(run.outcome).toMatchObject({ status: 'completed', output: 'Wrote NOTES-anthropic.md.' });
    expect(run.asked).toEqual([['write_file', 'ask:risk:MEDIUM']]);
    expect(await readFile(join(directory, 'NOTES-anthropic.md'), 'utf8')).toBe('People approve what agents do.');
    // The tool results went back as tool_result blocks, and the offered tools were the same.
    const last = messages.requests.at(-1)?.body as {
      messages: Array<{ role: string; content: unknown }>;
      tools: Array<{ name: string }>;
    };
    const results = last.messages
      .flatMap((message) => (Array.isArray(message.content) ? message.content : []))
      .filter((block: { type?: string }) => block.type === 'tool_result');
    expect(results.map((block: { tool_use_id?: string }) => block.tool_use_id)).toEqual(['toolu_1', 'toolu_2']);
    expect(last.tools.map((tool) => tool.name)).toEqual(['read_file', 'write_file']);
    expect(
      (openai.requests[0]?.body as { tools: Array<{ function: { name: string } }> }).tools.map(
        (tool) => tool.function.name,
      ),
    ).toEqual(['read_file', 'write_file']);
  });
});
