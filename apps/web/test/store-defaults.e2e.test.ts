import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '@interlock/core';
import { ownDatabase, until, type OwnDatabase, spawnProcessGroup } from '@interlock/core/testing';

/*
 * The stores on their defaults, through every command and createWorker (issue 34; F38,
 * F46, F55): where the other tests isolate themselves (a schema, a path of their own), each
 * case here runs as a user does — SQLite at its default path, PostgreSQL on a plain URL (a
 * database of its own, so `public` is the default), with `?schema=` in the URL, and with the
 * project file's `schema` (createWorker's `schema` option). In each: `interlock-web`, an
 * `interlock worker` and a service's `createWorker` (the built packages, in processes of their
 * own); a thread started by `interlock run --detach` and one started from the web API are
 * answered there and finished by the workers; `interlock threads` lists both.
 */

const REPOSITORY = fileURLToPath(new URL('../../../', import.meta.url));
const CLI = join(REPOSITORY, 'apps/cli/dist/main.js');
const WEB = join(REPOSITORY, 'apps/web/dist/main.js');
const CORE = join(REPOSITORY, 'packages/core/dist/index.js');
const BASE_URL = process.env['INTERLOCK_TEST_POSTGRES_URL'] ?? '';
const children: ChildProcess[] = [];
const directories: string[] = [];
const databases: OwnDatabase[] = [];

afterEach(() => {
  // Each child leads a process group: this also stops what it started.
  for (const child of children.splice(0)) child.kill('SIGKILL');
});
afterAll(async () => {
  for (const database of databases.splice(0)) await database.drop();
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true });
});
beforeAll(() => {
  for (const built of [CLI, WEB, CORE]) if (!existsSync(built)) throw new Error(`${built} is missing: run pnpm build`);
});

/** A workflow that asks one question and ends with the answer. */
function askWorkflow(id: string): string {
  return [
    `id = "${id}"`,
    `name = "Ask ${id}"`,
    'version = "1"',
    '[[variables]]',
    'name = "answer"',
    'scope = "thread"',
    '[[nodes]]',
    'id = "start"',
    'type = "START"',
    '[[nodes]]',
    'id = "ask"',
    'type = "USER_INTERACTION"',
    `config = { operationType = "UPDATE_VARIABLES", prompt = "Which answer for ${id}?", variables = [{ variableName = "answer", expression = "{{ input }}" }] }`,
    '[[nodes]]',
    'id = "end"',
    'type = "END"',
    'config = { output = "{{ answer }}" }',
    '[[edges]]',
    'from = "start"',
    'to = "ask"',
    '[[edges]]',
    'from = "ask"',
    'to = "end"',
  ].join('\n');
}

/** The service: createWorker from the built package, on the store it is given as JSON. */
const SERVICE = `import { createWorker } from ${JSON.stringify(CORE)};
const worker = await createWorker({ store: JSON.parse(process.argv[2]), workflows: ['ask-b.toml'] });
console.log('SERVICE-READY ' + worker.workflowIds.join(','));
process.once('SIGTERM', () => void worker.stop().then(() => process.exit(0)));
`;

interface Case {
  name: string;
  /** Prepares the directory and says how each part names the store. */
  setUp(directory: string): Promise<{
    flags: string[];
    environment: Record<string, string>;
    worker: Record<string, unknown>;
    /** Where the threads ended up: how many there are. */
    threadsThere(): Promise<number>;
  }>;
}

async function database(label: string): Promise<OwnDatabase> {
  const made = await ownDatabase(BASE_URL, label);
  databases.push(made);
  return made;
}

/** The number of threads in `schema`, and whether its job queue is beside it. */
async function threadsIn(url: string, schema: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const queue = await client.query(`SELECT 1 FROM "${schema}_jobs".migrations LIMIT 1`);
    expect(queue.rowCount).toBe(1);
    return (await client.query<{ count: number }>(`SELECT count(*)::int AS count FROM "${schema}".threads`)).rows[0]!
      .count;
  } finally {
    await client.end();
  }
}

const CASES: Case[] = [
  {
    name: 'SQLite at its default path (no --store, no path)',
    async setUp(directory) {
      return {
        flags: [],
        environment: {},
        worker: { type: 'sqlite' },
        async threadsThere() {
          const store = await openStore({ type: 'sqlite', path: join(directory, '.interlock/interlock.db') });
          try {
            return (await store.listThreads()).length;
          } finally {
            await store.close();
          }
        },
      };
    },
  },
  {
    name: 'PostgreSQL on a plain URL, in a database of its own (public, public_jobs)',
    async setUp() {
      const { url } = await database('defaults_plain');
      return {
        flags: ['--store', url],
        environment: {},
        worker: { type: 'postgres', url },
        threadsThere: () => threadsIn(url, 'public'),
      };
    },
  },
  {
    name: 'PostgreSQL with ?schema= in the URL',
    async setUp() {
      const { url } = await database('defaults_url_schema');
      const named = `${url}?schema=team`;
      return {
        flags: ['--store', named],
        environment: {},
        worker: { type: 'postgres', url: named },
        threadsThere: () => threadsIn(url, 'team'),
      };
    },
  },
  {
    name: "PostgreSQL with the schema option (the project file's, createWorker's)",
    async setUp(directory) {
      const { url } = await database('defaults_option');
      await writeFile(
        join(directory, 'interlock.toml'),
        '[store]\ntype = "postgres"\nurlEnv = "DATABASE_URL"\nschema = "crew"\n',
      );
      return {
        flags: [],
        environment: { DATABASE_URL: url },
        worker: { type: 'postgres', url, schema: 'crew' },
        threadsThere: () => threadsIn(url, 'crew'),
      };
    },
  },
];

/** Starts a process in `directory`; resolves once it printed `pattern`. */
function start(
  directory: string,
  args: string[],
  environment: Record<string, string>,
  pattern: RegExp,
): Promise<RegExpExecArray> {
  const child = spawnProcessGroup(process.execPath, args, {
    cwd: directory,
    env: { ...process.env, ...environment },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let printed = '';
  return new Promise((resolve, reject) => {
    const heard = (chunk: Buffer) => {
      printed += chunk.toString();
      const match = pattern.exec(printed);
      if (match) resolve(match);
    };
    child.stdout.on('data', heard);
    child.stderr.on('data', heard);
    child.on('close', (code) => reject(new Error(`${args.join(' ')} exited (${code}) before ${pattern}:\n${printed}`)));
  });
}

/** Runs a CLI command to its end in `directory`. */
function cli(
  directory: string,
  args: string[],
  environment: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnProcessGroup(process.execPath, [CLI, ...args], {
    cwd: directory,
    env: { ...process.env, ...environment },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('the stores on their defaults, through interlock, interlock-web, interlock worker and createWorker (issue 34)', () => {
  it.each(CASES)(
    '$name',
    async ({ setUp }) => {
      const directory = await mkdtemp(join(tmpdir(), 'interlock-defaults-'));
      directories.push(directory);
      await writeFile(join(directory, 'ask-a.toml'), askWorkflow('ask-a'));
      await writeFile(join(directory, 'ask-b.toml'), askWorkflow('ask-b'));
      await writeFile(join(directory, 'service.mjs'), SERVICE);
      const { flags, environment, worker, threadsThere } = await setUp(directory);

      const [, port = '', token = ''] = await start(
        directory,
        [WEB, ...flags, '--port', '0'],
        environment,
        /Interlock web inbox: http:\/\/[^:]+:(\d+)\/[\s\S]*\n\n {2}(\S+)\n\n/,
      );
      await start(directory, [CLI, 'worker', 'ask-a.toml', ...flags], environment, /Worker ready: serving ask-a/);
      await start(directory, ['service.mjs', JSON.stringify(worker)], environment, /SERVICE-READY ask-b/);
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the test reads whatever JSON came back
      const api = async (path: string, body?: unknown): Promise<any> => {
        const response = await fetch(`http://127.0.0.1:${port}${path}`, {
          method: body === undefined ? 'GET' : 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: response.status, ...((await response.json()) as Record<string, unknown>) };
      };
      await until(
        'both workers to offer their workflows',
        () => api('/api/workflows'),
        (body) => body.workflows?.length === 2,
      );

      // One thread from the CLI, one from the page's API: each answered on the web, finished by a worker.
      const run = await cli(directory, ['run', 'ask-a.toml', '--detach', '--json', ...flags], environment);
      const detached = JSON.parse(run.stdout || '{}') as { threadId?: string; pendingInteractionIds?: string[] };
      expect(detached, run.stderr).toMatchObject({ pendingInteractionIds: [expect.any(String)] });
      const fromPage = await api('/api/threads', { workflowId: 'ask-b' });
      expect(fromPage).toMatchObject({ status: 201 });
      const waiting = await until(
        'both questions to wait',
        () => api('/api/interactions'),
        (body) => body.interactions?.length === 2,
      );
      for (const question of waiting.interactions as { interactionId: string; workflowId: string }[])
        expect(
          await api(`/api/interactions/${question.interactionId}/respond`, {
            action: 'answer',
            value: `answered ${question.workflowId}`,
          }),
        ).toMatchObject({ status: 200, continuation: 'scheduled' });
      for (const threadId of [detached.threadId, fromPage.threadId])
        await until(
          'a worker to finish the thread',
          () => api(`/api/threads/${threadId}`),
          (body) => body.thread?.status === 'completed',
        );

      const listed = await cli(directory, ['threads', '--json', ...flags], environment);
      const threads = JSON.parse(listed.stdout || '[]') as { workflowId: string; status: string; output?: unknown }[];
      expect(threads.map(({ workflowId, status, output }) => ({ workflowId, status, output })).sort()).toEqual(
        expect.arrayContaining([
          { workflowId: 'ask-a', status: 'completed', output: 'answered ask-a' },
          { workflowId: 'ask-b', status: 'completed', output: 'answered ask-b' },
        ]),
      );
      expect(threads).toHaveLength(2);
      expect(await threadsThere()).toBe(2);
    },
    180_000,
  );
});
