import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

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
    include: ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts', 'apps/*/test/**/*.test.ts', 'examples/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
