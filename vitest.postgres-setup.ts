import { execFileSync } from 'node:child_process';

/**
 * The store tests need a PostgreSQL: when INTERLOCK_TEST_POSTGRES_URL is not set, start the
 * throwaway server of scripts/start-postgres.sh (127.0.0.1 only; it installs Debian's
 * postgresql if missing) and hand its URL to the test workers. Set up for the projects with
 * integration and end-to-end tests only: the unit tests need no database.
 */
export default function setup(): void {
  if (process.env['INTERLOCK_TEST_POSTGRES_URL']) return;
  // The server outlives the run on purpose (the next run reuses it): it does not carry the
  // mark by which the global teardown finds processes the tests left behind.
  const environment = { ...process.env };
  delete environment['INTERLOCK_TEST_RUN'];
  try {
    const output = execFileSync('bash', ['scripts/start-postgres.sh'], {
      encoding: 'utf8',
      env: environment,
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
