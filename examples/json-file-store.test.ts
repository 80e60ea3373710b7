import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterlock } from '@interlock/core';
import { describeConformance } from '@interlock/core/testing/conformance';
import { afterAll, describe, expect, it } from 'vitest';
import { openJsonFileStore } from './json-file-store.js';

/* A custom store checked the way a store author would: the whole conformance suite, imported by package name. */

const root = mkdtempSync(join(tmpdir(), 'interlock-json-file-store-'));
let files = 0;
const freshFile = () => join(root, `store-${(files += 1)}.json`);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describeConformance('examples/json-file-store.ts', async () => openJsonFileStore(freshFile()));

describe('examples/json-file-store.ts', () => {
  it('runs a thread to a question, and a new Interlock on the same file answers it after a restart', async () => {
    const file = freshFile();
    const workflow = {
      id: 'ask',
      name: 'Ask',
      version: '1',
      variables: [{ name: 'name', scope: 'thread' as const }],
      nodes: [
        { id: 'start', type: 'START' as const },
        {
          id: 'name',
          type: 'USER_INTERACTION' as const,
          config: {
            operationType: 'UPDATE_VARIABLES' as const,
            prompt: 'Your name?',
            variables: [{ variableName: 'name', expression: '{{ input }}' }],
          },
        },
        { id: 'end', type: 'END' as const, config: { output: 'hello {{ name }}' } },
      ],
      edges: [
        { from: 'start', to: 'name' },
        { from: 'name', to: 'end' },
      ],
    };
    const first = await createInterlock({ store: { type: 'custom', store: openJsonFileStore(file) } });
    const outcome = await (await first.start(first.registerWorkflow(workflow), { channel: 'nobody-here' })).done();
    expect(outcome.status).toBe('waiting');
    await first.close();

    // Another process, later: the file is all it has.
    const second = await createInterlock({ store: { type: 'custom', store: openJsonFileStore(file) } });
    try {
      second.registerWorkflow(workflow);
      const [question] = await second.pending();
      if (question === undefined) throw new Error('the question was not kept in the file');
      const answer = await second.respond(question.interactionId, 'Ada');
      if (answer.status !== 'accepted' || answer.thread === undefined) throw new Error('the answer did not continue');
      expect(await answer.thread.done()).toMatchObject({ status: 'completed', output: 'hello Ada' });
    } finally {
      await second.close();
    }
  });
});
