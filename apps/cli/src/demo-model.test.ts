import type { Message } from '@interlock/sdk-types';
import { describe, expect, it } from 'vitest';
import { createDemoModel } from './demo-model.js';

async function reply(nodeId: string, messages: Message[]): Promise<string> {
  const response = await createDemoModel().complete({ threadId: 't', nodeId, messages, signal: new AbortController().signal });
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
    const text = await reply('revise', [...drafted, { role: 'assistant', content: 'Plan…' }, { role: 'user', content: 'Revise it (revision 2).' }]);
    expect(text).toContain('revision 2');
    expect(text).toContain('Ship the dark mode');
  });

  it('reports on execute and quotes the last user message elsewhere', async () => {
    expect(await reply('execute', drafted)).toMatch(/^Done: .*Ship the dark mode/);
    expect(await reply('suggest', [{ role: 'user', content: 'I like Sichuan food.' }])).toContain('I like Sichuan food.');
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
