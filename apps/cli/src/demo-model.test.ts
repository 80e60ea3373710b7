import type { Message } from '@interlock/sdk-types';
import { describe, expect, it } from 'vitest';
import { createDemoModel } from './demo-model.js';

async function reply(nodeId: string, messages: Message[]): Promise<string> {
  const response = await createDemoModel().complete({
    threadId: 't',
    nodeId,
    messages,
    signal: new AbortController().signal,
  });
  return response.text;
}

describe('the demo model', () => {
  const drafted: Message[] = [
    { role: 'system', content: 'You are a careful engineer.' },
    { role: 'user', content: 'Draft a plan for: Ship the dark mode' },
  ];

  it('drafts a numbered three-step plan for the task in the conversation', async () => {
    const text = await reply('draft', drafted);
    expect(text).toContain('Ship the dark mode');
    expect(text).toMatch(/^1\. .+\n2\. .+\n3\. .+$/m);
  });

  it('names the revision when it revises, and still knows the task', async () => {
    const text = await reply('revise', [
      ...drafted,
      { role: 'assistant', content: 'Plan…' },
      { role: 'user', content: 'Revise it (revision 2).' },
    ]);
    expect(text).toContain('revision 2');
    expect(text).toContain('Ship the dark mode');
  });

  it('reports on execute and quotes the last user message elsewhere', async () => {
    expect(await reply('execute', drafted)).toMatch(/^Done: .*Ship the dark mode/);
    expect(await reply('suggest', [{ role: 'user', content: 'I like Sichuan food.' }])).toContain(
      'I like Sichuan food.',
    );
  });

  it('streams its text as it replies', async () => {
    const deltas: string[] = [];
    const model = createDemoModel();
    const response = await model.complete({
      threadId: 't',
      nodeId: 'execute',
      messages: drafted,
      signal: new AbortController().signal,
      onTextDelta: (delta) => deltas.push(delta),
    });
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(response.text);
  });
});

describe('the demo coding agent (node "agent")', () => {
  const request = (messages: Message[]) => ({
    threadId: 't',
    nodeId: 'agent',
    messages,
    signal: new AbortController().signal,
  });

  it('first proposes four tool calls at once: a read, a write, a command and a banned command', async () => {
    const response = await createDemoModel().complete(request([{ role: 'user', content: 'Look around.' }]));
    expect(response.toolCalls?.map((call) => [call.name, call.arguments])).toEqual([
      ['read_file', { path: 'README.md' }],
      ['write_file', { path: 'NOTES.md', content: expect.stringContaining('# Notes') }],
      ['bash', { command: 'ls -la' }],
      ['bash', { command: 'rm -rf /' }],
    ]);
  });

  it('then sums up what ran and what was refused, from the tool messages', async () => {
    const first = await createDemoModel().complete(request([{ role: 'user', content: 'Look around.' }]));
    const calls = first.toolCalls ?? [];
    const contents = [
      '[SUCCESS] # Demo project',
      '[SUCCESS] wrote 93 characters to NOTES.md',
      '[EXECUTION_REJECTED] This call was not run: the user rejected it: not today. Do not retry it unchanged; change your approach or ask the user.',
      '[EXECUTION_REJECTED] This call was not run: denied by policy (shell:banned:rm-root): banned command: recursive delete of /. Do not retry it unchanged; change your approach or ask the user.',
    ];
    const messages: Message[] = [
      { role: 'user', content: 'Look around.' },
      { role: 'assistant', content: first.text, toolCalls: calls },
      ...calls.map((call, index): Message => ({ role: 'tool', toolCallId: call.id, content: contents[index] ?? '' })),
      { role: 'user', content: 'Keep notes short.' },
    ];
    const summary = (await createDemoModel().complete(request(messages))).text;
    expect(summary).toBe(
      [
        'Done. Ran: read_file README.md, write_file NOTES.md.',
        'Refused: bash `ls -la` (the user rejected it: not today); bash `rm -rf /` (denied by policy (shell:banned:rm-root)).',
        'Noted your instruction: "Keep notes short.".',
      ].join('\n'),
    );
  });

  it('stops when the request was aborted, as a real model does', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(createDemoModel().complete({ ...request([]), signal: controller.signal })).rejects.toThrow(
      'called after the run was stopped',
    );
  });
});
