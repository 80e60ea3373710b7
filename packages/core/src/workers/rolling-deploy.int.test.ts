import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filter } from 'rxjs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { WorkflowDefinitionInput } from '@interlock/sdk-types';
import { dropSchemas } from '../__fixtures__/postgres-schemas.js';
import { until } from '../__fixtures__/until.js';
import { createInterlock, createWorker, openStore, type Interlock, type InterlockWorker } from '../index.js';
import { servedVersions, servedWorkflows } from './served-workflows.js';
import type { ThreadJob } from './thread-jobs.js';

/*
 * A rolling deploy (issue 28): workers of version 1 and of version 2 of one workflow serve
 * the same store. A thread goes on in a worker serving its own version — an answer to a
 * version-1 thread is stored and carried out, never refused or failed by a version-2 worker.
 */

const url = process.env['INTERLOCK_TEST_POSTGRES_URL'];
const run = `interlock_rolling_${process.pid}_${Date.now().toString(36)}`;
const schemas: string[] = [];
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});
afterAll(() => dropSchemas(url, schemas));

/** Asks for a message, then ends with it, saying which version ran it. */
function echo(version: string): WorkflowDefinitionInput {
  return {
    id: 'echo',
    name: 'Echo',
    version,
    variables: [{ name: 'said', scope: 'thread' }],
    nodes: [
      { id: 'start', type: 'START' },
      {
        id: 'ask',
        type: 'USER_INTERACTION',
        config: {
          operationType: 'UPDATE_VARIABLES',
          prompt: `Say something (version ${version})`,
          variables: [{ variableName: 'said', expression: '{{ input }}' }],
        },
      },
      { id: 'end', type: 'END', config: { output: `v${version}: {{ said }}` } },
    ],
    edges: [
      { from: 'start', to: 'ask' },
      { from: 'ask', to: 'end' },
    ],
  };
}

type Store = { type: 'sqlite'; path: string } | { type: 'postgres'; url: string; schema: string };

async function newStore(kind: 'SQLite' | 'PostgreSQL'): Promise<Store> {
  if (kind === 'SQLite')
    return { type: 'sqlite', path: join(await mkdtemp(join(tmpdir(), 'interlock-rolling-')), 'interlock.db') };
  const schema = `${run}_${schemas.length}`;
  schemas.push(schema);
  return { type: 'postgres', url: url ?? '', schema };
}

/** A worker serving one version; the threads it took forward and the jobs that failed in it. */
async function worker(store: Store, version: string) {
  const failures: string[] = [];
  const taken: string[] = [];
  const started: InterlockWorker = await createWorker({
    store,
    workflows: [echo(version)],
    pollMs: 50,
    onJobFailure: (job: ThreadJob, error) => failures.push(`${job.key}: ${String(error)}`),
  });
  closers.push(() => started.stop());
  started.interlock.events$
    .pipe(filter((event) => event.type === 'THREAD_RESUMED'))
    .subscribe((event) => taken.push(event.threadId));
  return { failures, taken };
}

async function question(answerer: Interlock, threadId: string) {
  const [asked] = await until(
    'the worker to ask',
    async () => (await answerer.pending()).filter((request) => request.threadId === threadId),
    (pending) => pending.length > 0,
    20_000,
  );
  return asked?.interactionId ?? '';
}

function ended(answerer: Interlock, threadId: string) {
  return until(
    'the thread to end',
    () => answerer.thread(threadId),
    (thread) => thread?.status === 'completed' || thread?.status === 'failed',
    20_000,
  );
}

describe.each(['SQLite', 'PostgreSQL'] as const)('a rolling deploy on %s (issue 28, F46, F53)', (kind) => {
  it.runIf(kind === 'SQLite' || url !== undefined)(
    'answers threads of both versions a worker offers, each carried on by a worker of its own version',
    async () => {
      const store = await newStore(kind);
      const first = await worker(store, '1');
      const opened = await openStore(store);
      const answerer = await createInterlock({
        store: { type: 'custom', store: opened },
        continueIn: 'workers-only',
        recoverOnStart: false,
      });
      closers.push(() => answerer.close());
      // The inbox starts the version workers offer: 1, then 2 once version-2 workers run.
      answerer.registerWorkflow(echo('1'));
      const old = (await answerer.start('echo')).threadId;
      const oldQuestion = await question(answerer, old);

      const second = await worker(store, '2');
      expect((await servedVersions(opened, Date.now())).map((served) => served.version)).toEqual(['1', '2']);
      expect((await servedWorkflows(opened, Date.now())).map((served) => served.version)).toEqual(['2']);
      answerer.registerWorkflow(echo('2'));
      const fresh = (await answerer.start('echo')).threadId;
      const freshQuestion = await question(answerer, fresh);

      // Version 2 is loaded here now; the version-1 thread is answered all the same.
      expect(await answerer.respond(oldQuestion, 'old', { responder: 'web:ada' })).toMatchObject({
        status: 'accepted',
        continuation: { status: 'scheduled' },
      });
      expect(await answerer.respond(freshQuestion, 'new', { responder: 'web:ada' })).toMatchObject({
        status: 'accepted',
        continuation: { status: 'scheduled' },
      });
      expect(await ended(answerer, old)).toMatchObject({ status: 'completed', output: 'v1: old' });
      expect(await ended(answerer, fresh)).toMatchObject({ status: 'completed', output: 'v2: new' });
      expect(first.taken).toContain(old);
      expect(first.taken).not.toContain(fresh);
      expect(second.taken).toContain(fresh);
      expect(second.taken).not.toContain(old);
      expect([...first.failures, ...second.failures]).toEqual([]);
    },
    60_000,
  );
});
