/**
 * Runs tasks one at a time per key (in call order); tasks of different keys run freely. A
 * platform connector keeps one sender's messages in the order they arrived with it.
 *
 * @example
 * const inOrder = new KeyedLock();
 * void inOrder.run(message.from, () => take(message));
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
