/**
 * Runs async operations one at a time, in call order. better-sqlite3 has one connection
 * per database, and TypeORM shares one query runner on it: two transactions interleaved
 * on it would nest or swallow each other's statements.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `operation` after every operation queued before it has settled. */
  run<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.tail.then(operation);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
