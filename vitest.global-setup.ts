import { execFileSync } from 'node:child_process';

/**
 * Says which Node runs the tests. The store tests need a PostgreSQL: when
 * INTERLOCK_TEST_POSTGRES_URL is not set, start the throwaway server of scripts/start-postgres.sh (127.0.0.1 only; it installs Debian's
 * postgresql if missing) and hand its URL to the test workers.
 */
export default function setup(): void {
  // Which Node runs the suite (F55, F61): 24 under `pnpm test`, 26 and 22 in CI's later runs.
  console.log(`Tests on Node ${process.version}`);
  if (process.env['INTERLOCK_TEST_POSTGRES_URL']) return;
  try {
    const output = execFileSync('bash', ['scripts/start-postgres.sh'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const url = /INTERLOCK_TEST_POSTGRES_URL=(\S+)/.exec(output)?.[1];
    if (url) process.env['INTERLOCK_TEST_POSTGRES_URL'] = url;
    // A role that may create databases, for the tests of the store's defaults (a database each).
    const admin = /INTERLOCK_TEST_POSTGRES_ADMIN_URL=(\S+)/.exec(output)?.[1];
    if (admin) process.env['INTERLOCK_TEST_POSTGRES_ADMIN_URL'] ??= admin;
  } catch (error) {
    // The PostgreSQL tests then fail and say how to start one; everything else still runs.
    console.error(`could not start PostgreSQL for the store tests: ${(error as Error).message}`);
  }
}
