import { describe, expect, it } from 'vitest';

/** Runs an example and returns what it printed. */
async function run(load: () => Promise<{ main(log: (...values: unknown[]) => void): Promise<void> }>) {
  const lines: unknown[][] = [];
  await (await load()).main((...values) => lines.push(values));
  return lines;
}

// Real processes and the frameworks' runtimes: on a busy 2-core machine a run takes seconds.
describe('examples/adapters: each framework under Interlock, offline (F56)', { timeout: 60_000 }, () => {
  it('openai-agents.ts pauses the run and finishes it after the edited approval', async () => {
    const lines = await run(() => import('./openai-agents.js'));
    expect(lines).toContainEqual(['run:', 'paused']);
    expect(lines).toContainEqual(['finished:', 'I wrote NOTES.md.']);
  });

  it('langgraph.ts pauses the thread and resumes it with the rejection', async () => {
    const lines = await run(() => import('./langgraph.js'));
    expect(lines).toContainEqual(['invoke:', 'paused']);
    expect(lines).toContainEqual(['the model answered:', 'Understood: I will not publish.']);
  });

  it('ai-sdk.ts runs the read, asks about the write and answers with the next call', async () => {
    const lines = await run(() => import('./ai-sdk.js'));
    expect(lines).toContainEqual(['approval requests:', 1]);
    expect(lines).toContainEqual(['the model answered:', 'I read the README and wrote NOTES.md.']);
  });

  it('claude-agent-sdk.ts refuses the banned command and writes the edited file', async () => {
    const lines = await run(() => import('./claude-agent-sdk.js'));
    expect(lines).toContainEqual(['asked:', 'Write']);
    expect(lines).toContainEqual(['NOTES.md:', JSON.stringify('# Notes\n')]);
  });
});
