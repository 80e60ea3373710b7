import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { linearWorkflow } from '../__fixtures__/workflows.js';
import { dropSchemas } from '../__fixtures__/postgres-schemas.js';
import { createInterlock, TYPES, type ICheckpointStore, type Interlock } from '../index.js';
import type { StoreOptions } from '../persistence/open-store.js';

const directory = await mkdtemp(join(tmpdir(), 'interlock-globals-'));
const schemas: string[] = [];
const postgresUrl = process.env['INTERLOCK_TEST_POSTGRES_URL'];
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
  await dropSchemas(postgresUrl, schemas);
});

const STORES: [string, () => StoreOptions][] = [
  ['memory', () => ({ type: 'memory' })],
  ['SQLite', () => ({ type: 'sqlite', path: join(directory, `${Math.random().toString(36).slice(2)}.db`) })],
  [
    'SQLite, group commit',
    () => ({ type: 'sqlite', path: join(directory, `${Math.random().toString(36).slice(2)}.db`), groupCommit: true }),
  ],
  [
    'PostgreSQL',
    () => {
      const schema = `globals_${Math.random().toString(36).slice(2, 10)}`;
      schemas.push(schema);
      if (postgresUrl === undefined)
        throw new Error('INTERLOCK_TEST_POSTGRES_URL names no PostgreSQL: the store tests need one');
      return { type: 'postgres', url: postgresUrl, schema };
    },
  ],
];

/** START → add one to the global `count` → END. */
const increment = linearWorkflow(
  [
    {
      id: 'add',
      type: 'VARIABLE',
      config: { assignments: [{ variableName: 'count', expression: '{{ count + 1 }}', scope: 'global' }] },
    },
  ],
  { id: 'counter', variables: [{ name: 'count', scope: 'global', default: 0 }] },
);

describe.each(STORES)('global variables updated by threads at once, on %s (F3)', (_name, storeOptions) => {
  it('loses no update when 20 threads each add one at the same time, in one process and in two', async () => {
    const store = storeOptions();
    const opened: Interlock[] = [];
    try {
      // Two instances on one database where the store allows it (two processes' worth of writers).
      let stored: ICheckpointStore | undefined;
      const first = await createInterlock({
        store,
        configureContainer: (container) => {
          stored = container.get(TYPES.CheckpointStore);
        },
      });
      opened.push(first);
      const second = store.type === 'memory' ? first : await createInterlock({ store });
      if (second !== first) opened.push(second);
      for (const interlock of opened) interlock.registerWorkflow(increment);
      const runs = await Promise.all(
        Array.from({ length: 20 }, (_, index) => (index % 2 === 0 ? first : second).start('counter')),
      );
      const outcomes = await Promise.all(runs.map((run) => run.done()));
      expect(outcomes.map((outcome) => outcome.status)).toEqual(Array.from({ length: 20 }, () => 'completed'));
      expect(await first.threads({ status: 'completed' })).toHaveLength(20);
      expect(await stored?.getGlobalVariables('counter')).toEqual({ count: 20 });
    } finally {
      for (const interlock of opened) await interlock.close();
    }
  }, 60_000);
});
