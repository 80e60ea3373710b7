import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { DIFF_LIMITS, lineDiff } from '../tools/tool-pins.js';
import { BoundedStdioServerTransport } from './bounded-stdio-transport.js';

/* Issue 24, item 6: what a server or a client sends is handled in bounded work. */

describe('definition diffs (issue 24)', () => {
  it('diffs a 70,000-line definition change without a table of its square, and shows a bounded part (F47)', () => {
    const before = Array.from({ length: 70_000 }, (_, index) => `  "line ${index}",`);
    const after = Array.from({ length: 70_000 }, (_, index) => `  "line ${index} changed",`);
    const diff = lineDiff(before, after).split('\n');
    expect(diff.length).toBeLessThanOrEqual(DIFF_LIMITS.maxShownLines + 1);
    expect(diff[0]).toBe('-   "line 0",');
    expect(diff.at(-1)).toMatch(/^ {2}… and \d+ more changed lines$/);
  });

  it('keeps a small change inside a huge definition exact, with its context (F47)', () => {
    const before = Array.from({ length: 50_000 }, (_, index) => `line ${index}`);
    const after = [...before.slice(0, 25_000), 'inserted', ...before.slice(25_000)];
    expect(lineDiff(before, after)).toBe(
      ['  …', '  line 24998', '  line 24999', '+ inserted', '  line 25000', '  line 25001', '  …'].join('\n'),
    );
  });
});

describe('BoundedStdioServerTransport (issue 24)', () => {
  function transport(maxBytes: number) {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const server = new BoundedStdioServerTransport(stdin, stdout, maxBytes);
    const received: unknown[] = [];
    const errors: string[] = [];
    server.onmessage = (message) => received.push(message);
    server.onerror = (error) => errors.push(error.message);
    const written: string[] = [];
    stdout.on('data', (chunk: Buffer) => written.push(...chunk.toString().split('\n').filter(Boolean)));
    return { stdin, server, received, errors, written };
  }

  it('refuses a message over the limit, answers its request with why, and reads the next one (F50)', async () => {
    const { stdin, server, received, errors, written } = transport(1_000);
    await server.start();
    const huge = JSON.stringify({ jsonrpc: '2.0', method: 'tools/call', params: { text: 'x'.repeat(5_000) }, id: 7 });
    // The oversized line arrives in pieces, as a pipe delivers it.
    stdin.write(huge.slice(0, 2_000));
    stdin.write(huge.slice(2_000));
    stdin.write(`\n${JSON.stringify({ jsonrpc: '2.0', method: 'ping', id: 8 })}\n`);
    await new Promise((resolve) => setImmediate(resolve));
    expect(received).toEqual([{ jsonrpc: '2.0', method: 'ping', id: 8 }]);
    expect(errors).toEqual([expect.stringContaining('larger than 1000 bytes')]);
    expect(written.map((line) => JSON.parse(line) as unknown)).toEqual([
      { jsonrpc: '2.0', id: 7, error: { code: -32600, message: expect.stringContaining('larger than 1000 bytes') } },
    ]);
    await server.close();
  });
});
