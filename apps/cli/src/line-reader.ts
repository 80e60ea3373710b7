import { createInterface, type Interface } from 'node:readline';

/** What {@link LineReader.next} found. */
export type LineReadResult = { status: 'line'; text: string } | { status: 'ended' } | { status: 'aborted' };

/**
 * Reads a stream one line at a time, on demand. Lines that arrive before anybody asks are
 * queued, so successive questions read successive lines of a pipe (`printf 'no\nyes\n'`).
 * One reader must serve the whole process: two readline interfaces over the same stdin
 * would race for its data.
 */
export class LineReader {
  private readonly queued: string[] = [];
  private readonly waiters: Array<(result: LineReadResult) => void> = [];
  private readonly lines: Interface;
  private ended = false;

  /** @param input - the stream to read, usually `process.stdin` when it is not a terminal. */
  constructor(input: NodeJS.ReadableStream) {
    this.lines = createInterface({ input, terminal: false, crlfDelay: Infinity });
    this.lines.on('line', (text) => {
      const waiter = this.waiters.shift();
      if (waiter) waiter({ status: 'line', text });
      else this.queued.push(text);
    });
    this.lines.on('close', () => {
      this.ended = true;
      for (const waiter of this.waiters.splice(0)) waiter({ status: 'ended' });
    });
  }

  /**
   * The next line, once it arrives; `ended` when the stream has no more lines, `aborted`
   * when `signal` fires first (the line then stays for the next reader).
   */
  next(signal?: AbortSignal): Promise<LineReadResult> {
    const text = this.queued.shift();
    if (text !== undefined) return Promise.resolve({ status: 'line', text });
    if (this.ended) return Promise.resolve({ status: 'ended' });
    if (signal?.aborted) return Promise.resolve({ status: 'aborted' });
    return new Promise((resolve) => {
      const onAbort = (): void => {
        const index = this.waiters.indexOf(deliver);
        if (index !== -1) this.waiters.splice(index, 1);
        resolve({ status: 'aborted' });
      };
      const deliver = (result: LineReadResult): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve(result);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(deliver);
    });
  }

  /** Stops reading, so the stream no longer keeps the process alive. Pending reads end. */
  close(): void {
    this.lines.close();
  }
}
