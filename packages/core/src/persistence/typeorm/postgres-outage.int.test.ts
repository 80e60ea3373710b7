import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { askNode, linearWorkflow } from '../../__fixtures__/workflows.js';
import { createInterlock, openStore, type ICheckpointStore, type Interlock } from '../../index.js';
import type { UnitOfWork } from '../unit-of-work.js';

/*
 * The answerer is told the truth when PostgreSQL dies or freezes around an answer (issue 11):
 * a PostgreSQL server of this test's own (it is killed and frozen), and short timeouts.
 */

const SCRIPT = fileURLToPath(new URL('../../../../../scripts/start-postgres.sh', import.meta.url));
const PORT = '54377';
const DIR = `/tmp/interlock-postgres-outage-${PORT}`;
const TIMEOUTS = { connectMs: 1_000, statementMs: 1_000, idleInTransactionMs: 5_000 };
/** The server stays frozen until respond() returns: one that returns before this (the test's limit is 60 s) gave up by its own timeouts. */
const STILL_FROZEN_MS = 20_000;
let url = '';
let schemas = 0;

function startServer(): string {
  const output = execFileSync('bash', [SCRIPT], {
    encoding: 'utf8',
    env: { ...process.env, INTERLOCK_PG_PORT: PORT, INTERLOCK_PG_DIR: DIR },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const found = /INTERLOCK_TEST_POSTGRES_URL=(\S+)/.exec(output)?.[1];
  if (!found) throw new Error(`scripts/start-postgres.sh printed no URL: ${output}`);
  return found;
}

function pgCtl(...args: string[]): void {
  const bin = readdirSync('/usr/lib/postgresql').sort().at(-1);
  const command = [`/usr/lib/postgresql/${bin}/bin/pg_ctl`, '-D', `${DIR}/data`, ...args];
  const [file, ...rest] = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--', ...command] : command;
  execFileSync(file!, rest, { stdio: 'ignore' });
}

/** Every process of the server: the postmaster and its children. */
function serverProcesses(): number[] {
  const postmaster = Number(readFileSync(`${DIR}/data/postmaster.pid`, 'utf8').split('\n')[0]);
  let children: number[] = [];
  try {
    children = execFileSync('pgrep', ['-P', String(postmaster)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    // pgrep exits 1 when it finds none (a postmaster starting or stopping): the postmaster alone.
  }
  return [postmaster, ...children];
}

function signalServer(signal: 'SIGSTOP' | 'SIGCONT'): void {
  for (const pid of serverProcesses()) process.kill(pid, signal);
}

/** The store, with `hook` run before or after the commit of a unit that answers a question (the answer's write). */
function withHook(store: ICheckpointStore, hook: { before?: () => void; after?: () => void }): ICheckpointStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (property !== 'commit') return value.bind(target);
      return async (unit: UnitOfWork) => {
        const answers = unit.interactions?.some((change) => change.kind === 'answer') === true;
        if (answers) hook.before?.();
        const result = await store.commit(unit);
        if (answers) hook.after?.();
        return result;
      };
    },
  });
}

async function waitingThread(hook: { before?: () => void; after?: () => void }) {
  schemas += 1;
  const store = { type: 'postgres' as const, url, schema: `outage_${process.pid}_${schemas}`, timeouts: TIMEOUTS };
  const real = await openStore(store);
  const interlock = await createInterlock({ store: { type: 'custom', store: withHook(real, hook) } });
  const workflow = interlock.registerWorkflow(
    linearWorkflow([askNode('ask', { timeout: '1h' })], { id: `outage-${schemas}` }),
  );
  const waiting = await (await interlock.start(workflow, { channel: 'inbox' })).done();
  const [question] = await interlock.pending();
  return { store, interlock, threadId: waiting.threadId, interactionId: question!.interactionId };
}

async function storedStatus(store: Parameters<typeof openStore>[0], interactionId: string) {
  const reader = await openStore(store);
  try {
    return (await reader.getInteraction(interactionId))?.status;
  } finally {
    await reader.close();
  }
}

/** Sets the claim on a thread as another process would hold it. */
async function setLease(
  store: { url: string; schema: string },
  threadId: string,
  owner: string,
  until: Date,
): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: store.url });
  await client.connect();
  try {
    await client.query(`UPDATE "${store.schema}".threads SET lease_owner = $1, lease_until = $2 WHERE thread_id = $3`, [
      owner,
      until.toISOString(),
      threadId,
    ]);
  } finally {
    await client.end();
  }
}

const opened: Interlock[] = [];

beforeAll(() => {
  url = startServer();
}, 120_000);

// A test that stopped or froze the server and failed before it started it again leaves it running for the next.
afterEach(() => {
  try {
    signalServer('SIGCONT');
  } catch {
    // Stopped: started below.
  }
  startServer();
});

afterAll(async () => {
  for (const interlock of opened) await interlock.close().catch(() => undefined);
  try {
    signalServer('SIGCONT');
  } catch {
    // No server: nothing to wake.
  }
  // Stopped whatever the wake-up said (a server left running fails the run's teardown); pg_ctl
  // waits for the postmaster to exit, up to two minutes on a loaded machine.
  for (const mode of ['fast', 'immediate']) {
    try {
      pgCtl('stop', '-m', mode, '-t', '120');
      return;
    } catch {
      // Already stopped, or it did not stop in time: the next mode.
    }
  }
});

describe('respond() on a PostgreSQL that dies or freezes (issue 11)', () => {
  it('reports an answer committed just before the server died as applied: the answer and the step it took are one commit (issue 27)', async () => {
    const { store, interlock, threadId, interactionId } = await waitingThread({
      after: () => pgCtl('stop', '-m', 'immediate'),
    });
    opened.push(interlock);
    const result = await interlock.respond(interactionId, 'yes');
    // The run's first commit stored the answer, consumed it and ended the thread: all of it happened.
    expect(result).toMatchObject({ status: 'accepted', continuation: { status: 'continued' } });
    expect(await (result.status === 'accepted' ? result.thread?.done() : undefined)).toMatchObject({
      threadId,
      status: 'completed',
      output: 'yes',
    });

    startServer();
    expect(await storedStatus(store, interactionId)).toBe('processed');
    expect(await interlock.respond(interactionId, 'yes')).toMatchObject({ status: 'accepted', repeated: true });
    expect(await interlock.respond(interactionId, 'no')).toEqual({ status: 'already_answered', threadId });
  }, 60_000);

  it('reports an answer stored beside the claim of another process as stored and stalled when the server dies before the thread could go on, and a retry goes on', async () => {
    const { store, interlock, threadId, interactionId } = await waitingThread({
      after: () => pgCtl('stop', '-m', 'immediate'),
    });
    opened.push(interlock);
    // Another process holds the thread: the answer is stored on its own, for that process to take.
    const claimedUntil = (ms: number) => setLease(store, threadId, 'another-process', new Date(Date.now() + ms));
    await claimedUntil(60_000);
    const result = await interlock.respond(interactionId, 'yes');
    expect(result).toMatchObject({
      status: 'accepted',
      continuation: { status: 'stalled', code: 'STORE_UNAVAILABLE' },
    });

    startServer();
    expect(await storedStatus(store, interactionId)).toBe('responded');
    await claimedUntil(-1_000);
    const retried = await interlock.respond(interactionId, 'yes');
    expect(retried).toMatchObject({ status: 'accepted', repeated: true, continuation: { status: 'continued' } });
    expect(await (retried.status === 'accepted' ? retried.thread?.done() : undefined)).toMatchObject({
      threadId,
      status: 'completed',
      output: 'yes',
    });
  }, 60_000);

  it('gives up within the timeout while the server is frozen with the answer sent, and says its outcome is unknown', async () => {
    const { store, interlock, interactionId } = await waitingThread({ before: () => signalServer('SIGSTOP') });
    opened.push(interlock);
    const started = performance.now();
    let error: unknown;
    try {
      await interlock.respond(interactionId, 'yes');
    } catch (caught) {
      error = caught;
    } finally {
      signalServer('SIGCONT');
    }
    expect(performance.now() - started).toBeLessThan(STILL_FROZEN_MS);
    // The answer's unit went out in one statement that got no answer: the server may run it
    // when it wakes, or not. Read back, it is stored whole or not at all.
    expect(error).toMatchObject({ code: 'STORE_OUTCOME_UNKNOWN' });
    expect(['pending', 'responded', 'processed']).toContain(await storedStatus(store, interactionId));
  }, 60_000);

  it('returns within the timeout while the server is frozen after the answer was committed, saying the thread went on', async () => {
    const { store, interlock, interactionId } = await waitingThread({ after: () => signalServer('SIGSTOP') });
    opened.push(interlock);
    const started = performance.now();
    let result;
    try {
      result = await interlock.respond(interactionId, 'yes');
    } finally {
      signalServer('SIGCONT');
    }
    expect(performance.now() - started).toBeLessThan(STILL_FROZEN_MS);
    expect(result).toMatchObject({ status: 'accepted', continuation: { status: 'continued' } });
    expect(await storedStatus(store, interactionId)).toBe('processed');
  }, 60_000);
});
