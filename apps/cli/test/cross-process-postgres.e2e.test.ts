import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, type CliRun } from './built-cli.js';
import { cliIn, createWorkingDirectory, jsonOf, pendingIn, type Detached } from './cross-process.js';

const BASE_URL = process.env['INTERLOCK_TEST_POSTGRES_URL'];

/** The base URL with a schema of this run's own, so the run starts from empty tables. */
function withFreshSchema(url: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('schema', `cli_e2e_${randomBytes(6).toString('hex')}`);
  return parsed.toString();
}

/** Everything a run printed: a store's password must never be in it. */
function printed(run: CliRun): string {
  return `${run.stdout}${run.stderr}`;
}

describe('the cross-process commands on PostgreSQL (--store postgres://…)', () => {
  let directory = '';
  let store = '';
  let password = '';
  beforeAll(async () => {
    assertBuilt();
    if (BASE_URL === undefined || BASE_URL === '') {
      throw new Error(
        'INTERLOCK_TEST_POSTGRES_URL is not set: the root vitest setup starts PostgreSQL (scripts/start-postgres.sh) and sets it',
      );
    }
    store = withFreshSchema(BASE_URL);
    password = decodeURIComponent(new URL(BASE_URL).password);
    directory = await createWorkingDirectory('interlock-postgres-cross-process-');
  });
  afterAll(async () => {
    if (directory !== '') await rm(directory, { recursive: true, force: true });
  });

  it('detaches, lists, answers from a third process (exit 0), and a second answer gets exit 4', async () => {
    const started = await cliIn(directory, ['run', 'ask.toml', '--detach', '--json', '--store', store]);
    expect(started.exitCode).toBe(3);
    const detached = jsonOf<Detached>(started);
    expect(detached.status).toBe('waiting');
    expect(existsSync(join(directory, '.interlock', 'interlock.db'))).toBe(false);

    // INTERLOCK_STORE chooses the same store without putting the URL on the command line.
    const pending = await pendingIn(directory, [], { INTERLOCK_STORE: store });
    expect(pending.map((request) => request.interactionId)).toEqual(detached.pendingInteractionIds);
    expect(await pendingIn(directory)).toEqual([]);

    const [interactionId = ''] = detached.pendingInteractionIds;
    const answered = await cliIn(directory, ['respond', interactionId, 'answer', 'from PostgreSQL', '--store', store]);
    expect(answered.exitCode).toBe(0);
    expect(answered.stdout).toContain('Output:\nthe answer was from PostgreSQL');
    const again = await cliIn(directory, ['respond', interactionId, 'answer', 'twice', '--store', store]);
    expect(again.exitCode).toBe(4);

    const threads = jsonOf<Array<Record<string, unknown>>>(
      await cliIn(directory, ['threads', '--json', '--store', store]),
    );
    expect(threads).toEqual([expect.objectContaining({ threadId: detached.threadId, status: 'completed' })]);
    for (const run of [started, answered, again]) expect(printed(run)).not.toContain(`:${password}@`);
  });

  it('masks the password in what it prints about the store', async () => {
    const listed = await cliIn(directory, ['pending', '--store', store]);
    expect(listed.exitCode).toBe(0);
    expect(listed.stdout).toMatch(/Nothing waits for an answer in postgres(ql)?:\/\/[^:]+:\*\*\*@/);
    expect(printed(listed)).not.toContain(`:${password}@`);
    const wrongPassword = new URL(store);
    wrongPassword.password = 'not-the-password';
    const refused = await cliIn(directory, ['pending', '--store', wrongPassword.toString()]);
    expect(refused.exitCode).toBe(1);
    expect(printed(refused)).not.toContain('not-the-password');
  });
});
