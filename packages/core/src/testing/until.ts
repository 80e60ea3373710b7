/** How {@link until} waits. */
export interface UntilOptions {
  /** The generous limit only a hang reaches, in milliseconds (default 60 000). */
  timeoutMs?: number;
  /** How long between two reads, in milliseconds (default 50). */
  intervalMs?: number;
  /**
   * Under fake timers: moves the fake clock on by the given milliseconds instead of waiting
   * in real time (`(ms) => vi.advanceTimersByTimeAsync(ms)`); `timeoutMs` is then fake time.
   */
  advance?: (ms: number) => unknown;
}

/**
 * Reads until `done` holds of what it read and returns that value; throws, with the last
 * value read, once `timeoutMs` passed. For tests that wait on what another process, a
 * server or a database reports: the wait ends as soon as the condition holds, so a fast
 * machine is not slowed down and a slow one is not failed; only a hang reaches the limit.
 *
 * Time-based behaviour inside one process is better tested with fake timers: pass
 * `advance` and the wait moves the fake clock on instead of waiting in real time.
 *
 * @param what - what is awaited, for the error message (`'the thread to complete'`)
 * @param read - reads the current state (a store, an HTTP endpoint, a list of events)
 * @param done - whether the state read is the one awaited
 * @param options - a number is `timeoutMs`
 * @throws Error `timed out waiting for <what>` with the last value read, after `timeoutMs`
 * @example
 * const thread = await until(
 *   'the thread to complete',
 *   () => interlock.thread(threadId),
 *   (found) => found?.status === 'completed',
 * );
 */
export async function until<T>(
  what: string,
  read: () => T | Promise<T>,
  done: (value: T) => boolean,
  options: number | UntilOptions = {},
): Promise<T> {
  const {
    timeoutMs = 60_000,
    intervalMs = 50,
    advance,
  } = typeof options === 'number' ? { timeoutMs: options } : options;
  let waited = 0;
  const started = Date.now();
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if ((advance === undefined ? Date.now() - started : waited) > timeoutMs)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}: ${describe(value)}`);
    if (advance === undefined) await new Promise((resolve) => setTimeout(resolve, intervalMs));
    else await advance(intervalMs);
    waited += intervalMs;
  }
}

function describe(value: unknown): string {
  try {
    return (JSON.stringify(value) ?? String(value)).slice(0, 500);
  } catch {
    return String(value).slice(0, 500);
  }
}
