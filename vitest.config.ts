import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** Every test file: beside the code, the apps' and the bench's test folders, the examples. */
const ALL = [
  'packages/*/src/**/*.test.ts',
  'apps/*/src/**/*.test.ts',
  'apps/*/test/**/*.test.ts',
  'bench/test/**/*.test.ts',
  'examples/**/*.test.ts',
];
// The name says the kind (CONTRIBUTING.md): `x.int.test.ts` with a real SQLite, PostgreSQL
// or HTTP server, `x.e2e.test.ts` an app end to end (the built CLI, tmux, Chromium); every
// other test file is a unit test, run alone by `pnpm test:unit`.
const INT = ALL.map((glob) => glob.replace(/\.test\.ts$/, '.int.test.ts'));
const E2E = ALL.map((glob) => glob.replace(/\.test\.ts$/, '.e2e.test.ts'));
const DEPLOYMENT = ['apps/web/test/deployment.e2e.test.ts', 'packages/core/src/workers/workers.int.test.ts'];
// Pack the packages and install them with npm outside the repository (minutes: npm fetches and
// installs each project's whole tree): run last, the two files at once (npm mostly waits on the
// registry); on their own, `pnpm exec vitest run --project packaging`.
const PACKAGING = ['apps/web/test/packaged-deployment.e2e.test.ts', 'examples/adapters/packaged-adapters.e2e.test.ts'];
const HEAVY = [
  'packages/core/src/engine/multi-process.int.test.ts',
  'packages/core/src/engine/claim-kill-loop.int.test.ts',
  'packages/core/src/engine/frozen-claim.int.test.ts',
  'packages/core/src/crash/crash-recovery.int.test.ts',
  'packages/core/src/crash/crash-recovery-more-kills.int.test.ts',
];
/** How many files of the first group (`deployment`, `many-process`) run at once: two in
 * `pnpm test:soak`, whose scenarios are ten times larger. */
const HEAVY_AT_ONCE = process.env.INTERLOCK_SOAK ? 2 : 3;
/** Starts the PostgreSQL of the store tests, for every project but the unit tests. */
const POSTGRES = ['./vitest.postgres-setup.ts'];

export default defineConfig({
  resolve: {
    // Tests run against the sources; the apps' end-to-end tests run the built CLI.
    alias: [
      { find: /^@interlock\/sdk-types$/, replacement: source('./packages/sdk-types/src/index.ts') },
      { find: /^@interlock\/receipts$/, replacement: source('./packages/receipts/src/index.ts') },
      { find: /^@interlock\/core\/testing$/, replacement: source('./packages/core/src/testing/index.ts') },
      { find: /^@interlock\/core$/, replacement: source('./packages/core/src/index.ts') },
      { find: /^@interlock\/chat\/testing$/, replacement: source('./packages/chat/src/testing/index.ts') },
      { find: /^@interlock\/chat$/, replacement: source('./packages/chat/src/index.ts') },
      { find: /^@interlock\/chat-slack\/testing$/, replacement: source('./packages/chat-slack/src/testing/index.ts') },
      { find: /^@interlock\/chat-slack$/, replacement: source('./packages/chat-slack/src/index.ts') },
      {
        find: /^@interlock\/chat-feishu\/testing$/,
        replacement: source('./packages/chat-feishu/src/testing/index.ts'),
      },
      { find: /^@interlock\/chat-feishu$/, replacement: source('./packages/chat-feishu/src/index.ts') },
      {
        find: /^@interlock\/chat-whatsapp\/testing$/,
        replacement: source('./packages/chat-whatsapp/src/testing/index.ts'),
      },
      { find: /^@interlock\/chat-whatsapp$/, replacement: source('./packages/chat-whatsapp/src/index.ts') },
      // The adapters' tests' shared helpers (a private package, never published).
      {
        find: /^@interlock\/testing-adapters$/,
        replacement: source('./packages/testing-adapters/src/index.ts'),
      },
    ],
  },
  test: {
    globalSetup: ['./vitest.global-setup.ts'],
    // Limits that only a hang reaches: a test waits on what it awaits (events, `until`), so a
    // busy machine makes it slower, never wrong; a limit it hits on a busy machine cries wolf.
    testTimeout: 60_000,
    // vitest's default on 2 cores is one file at a time (CPUs − 1); most files wait on
    // processes, servers and timers, so two at a time use the machine better.
    maxWorkers: 2,
    hookTimeout: 60_000,
    // Every test has an assertion that can fail: one that only waits (for a condition, for a
    // process) passes whatever it waited for.
    expect: { requireAssertions: true },
    reporters: process.env.CI ? ['default'] : ['default'],
    projects: [
      // These run many processes against one PostgreSQL, with leases of a second: beside the
      // other projects they starve them (and themselves) past timeouts and time budgets, so
      // they run first, in a group of their own, three files at a time (they wait on leases
      // and frozen processes: a file alone used a third of the two cores; 186 s one at a time,
      // 112 s two at a time, 81 s three at a time, with the same margins: the smallest "claim
      // left when a renewal came back" 257–321 ms at three, 285 ms at two). (Their 1000-thread
      // runs used to stall now and then: a worker killed between consuming an answer and saving
      // its thread left the thread waiting for good. Fixed in core; workers.int's "leaves … to
      // the next worker" cases pin it down.)
      {
        extends: true,
        test: {
          name: 'deployment',
          maxWorkers: HEAVY_AT_ONCE,
          include: DEPLOYMENT,
          globalSetup: POSTGRES,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'unit',
          include: ALL,
          exclude: [...configDefaults.exclude, ...INT, ...E2E],
          // One module graph per worker, not per file: importing core again for every file was
          // most of the unit tests' time. vitest.unit-setup.ts resets timers, mocks and stubs.
          isolate: false,
          setupFiles: ['./vitest.unit-setup.ts'],
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'int',
          include: INT,
          exclude: [...configDefaults.exclude, ...HEAVY, ...DEPLOYMENT],
          globalSetup: POSTGRES,
          sequence: { groupOrder: 1 },
        },
      },
      {
        // End-to-end tests drive the built CLI (a process per command, a dozen per test), tmux
        // and Chromium: with two test files at once they get a longer timeout than unit tests.
        extends: true,
        test: {
          name: 'e2e',
          include: E2E,
          exclude: [...configDefaults.exclude, ...DEPLOYMENT, ...PACKAGING],
          globalSetup: POSTGRES,
          testTimeout: 120_000,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'packaging',
          include: PACKAGING,
          globalSetup: POSTGRES,
          testTimeout: 900_000,
          sequence: { groupOrder: 3 },
        },
      },
      {
        extends: true,
        test: {
          name: 'many-process',
          maxWorkers: HEAVY_AT_ONCE,
          include: HEAVY,
          globalSetup: POSTGRES,
          sequence: { groupOrder: 0 },
        },
      },
    ],
  },
});
