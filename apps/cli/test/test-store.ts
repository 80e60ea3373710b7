import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const directory = mkdtempSync(join(tmpdir(), 'interlock-e2e-store-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/**
 * The store of the end-to-end tests that run from the repository root: a SQLite file in a
 * temporary directory of their own (one per test file), so they never write
 * `.interlock/` into the repository. Tests of the default store run in a temporary
 * working directory and remove INTERLOCK_STORE instead.
 */
export const TEST_STORE_ENVIRONMENT: Readonly<Record<string, string>> = {
  INTERLOCK_STORE: `sqlite:${join(directory, 'interlock.db')}`,
};
