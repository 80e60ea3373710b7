// Runs the bench's own tests (bench/test/) on their own, from the repository root:
//   pnpm exec vitest run --config bench/vitest.config.mjs
// They run the built bench (`pnpm --filter @interlock/bench build` first).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('.', import.meta.url)),
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
  },
});
