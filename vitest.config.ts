import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

const ALL = [
  'packages/*/src/**/*.test.ts',
  'apps/*/src/**/*.test.ts',
  'apps/*/test/**/*.test.ts',
  'bench/test/**/*.test.ts',
  'examples/**/*.test.ts',
];
const DEPLOYMENT = ['apps/web/test/deployment.e2e.test.ts', 'packages/core/src/workers/workers.int.test.ts'];
const HEAVY = [
  'packages/core/src/engine/multi-process.int.test.ts',
  'packages/core/src/crash/crash-recovery.int.test.ts',
  'packages/core/src/crash/crash-recovery-more-kills.int.test.ts',
];

export default defineConfig({
  resolve: {
    // Tests run against the sources; the apps' end-to-end tests run the built CLI.
    alias: [
      { find: /^@interlock\/sdk-types$/, replacement: source('./packages/sdk-types/src/index.ts') },
      { find: /^@interlock\/core\/testing$/, replacement: source('./packages/core/src/testing/index.ts') },
      { find: /^@interlock\/core$/, replacement: source('./packages/core/src/index.ts') },
    ],
  },
  test: {
    globalSetup: ['./vitest.global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    reporters: process.env.CI ? ['default'] : ['default'],
    projects: [
      // These run many processes against one PostgreSQL and take both cores: beside anything
      // else they starve it (and themselves) past timeouts and time budgets, so they run alone,
      // one at a time. (Their 1000-thread runs used to stall now and then: a worker killed
      // between consuming an answer and saving its thread left the thread waiting for good.
      // Fixed in core; workers.int's "leaves … to the next worker" cases pin it down.)
      {
        extends: true,
        test: { name: 'deployment', include: DEPLOYMENT, fileParallelism: false, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: {
          name: 'tests',
          include: ALL,
          exclude: [...configDefaults.exclude, ...HEAVY, ...DEPLOYMENT],
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: { name: 'many-process', include: HEAVY, fileParallelism: false, sequence: { groupOrder: 2 } },
      },
    ],
  },
});
