import { afterAll, vi } from 'vitest';

// The unit tests share their workers' module graph (`isolate: false` in vitest.config.ts: a
// seventh of the time, most of it spent importing the same modules again): each file leaves
// the worker as it found it, whatever its tests did.
afterAll(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});
