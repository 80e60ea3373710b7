import type { Server } from 'node:http';

/**
 * The calls a platform's fake recorded, to wait on: `until(test)` resolves once the calls
 * pass `test`, looked at again at each `wake()` (the fake wakes after it recorded a call).
 */
export class RecordedCalls<Call> {
  private waiters: { test: () => boolean; resolve: () => void }[] = [];

  constructor(private readonly calls: readonly Call[]) {}

  until(test: (calls: readonly Call[]) => boolean): Promise<void> {
    return new Promise((resolve) => {
      if (test(this.calls)) resolve();
      else this.waiters.push({ test: () => test(this.calls), resolve });
    });
  }

  wake(): void {
    const ready = this.waiters.filter((waiter) => waiter.test());
    this.waiters = this.waiters.filter((waiter) => !ready.includes(waiter));
    for (const waiter of ready) waiter.resolve();
  }
}

/** Closes a fake's HTTP server at once: its open connections too. */
export async function closeServer(server: Server | undefined): Promise<void> {
  if (server === undefined) return;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
