import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from './open-store.js';
import { committed } from '../testing/conformance/store-records.js';
import { continueJob, recoverJob } from '../workers/thread-jobs.js';

/*
 * A unit that ends a thread drops its recovery (issue 38): the recover job would only find
 * the thread ended. A job a worker holds right now is left to run; other jobs stay.
 */

const thread = { threadId: 'thread-1', workflowId: 'workflow-a', workflowVersion: '1' };
const queue = 'workflow-a@1';
const later = '2099-01-01T00:00:00.000Z';

describe.each(['memory', 'sqlite'] as const)('the %s store as a job queue', (type) => {
  it('removes the waiting jobs a unit drops, leaving the others and the ones a worker holds', async () => {
    const store =
      type === 'memory'
        ? await openStore({ type })
        : await openStore({ type, path: join(await mkdtemp(join(tmpdir(), 'interlock-drops-')), 'store.db') });
    try {
      const other = { ...thread, threadId: 'thread-2' };
      await committed(store, { jobs: [recoverJob(thread, 0), recoverJob(other, 0), continueJob(other, 0)] });
      // A worker takes the second thread's recovery (and its continuation).
      const taken = await store.takeJobs?.([queue], 'worker-a', new Date(1).toISOString(), later, 10);
      expect(taken?.map((job) => job.key).sort()).toEqual([
        'continue:thread-2',
        'recover:thread-1',
        'recover:thread-2',
      ]);
      await store.finishJob?.('recover:thread-1', 'worker-a');
      await store.finishJob?.('continue:thread-2', 'worker-a');
      await committed(store, { jobs: [recoverJob(thread, 0)] });

      await committed(store, { dropJobs: ['recover:thread-1', 'recover:thread-2', 'no-such-job'] });
      // The first thread's recovery is gone; the second's, held by worker-a, is left to it.
      const left = await store.takeJobs?.([queue], 'worker-b', later, later, 10);
      expect(left?.map((job) => job.key)).toEqual(['recover:thread-2']);
    } finally {
      await store.close();
    }
  });
});
