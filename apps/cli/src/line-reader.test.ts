import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { LineReader } from './line-reader.js';

describe('LineReader', () => {
  let reader: LineReader | undefined;
  afterEach(() => reader?.close());

  it('gives successive lines to successive reads, including lines piped before anybody asked', async () => {
    const input = new PassThrough();
    input.end('no\nyes\n');
    reader = new LineReader(input);
    expect(await reader.next()).toEqual({ status: 'line', text: 'no' });
    expect(await reader.next()).toEqual({ status: 'line', text: 'yes' });
    expect(await reader.next()).toEqual({ status: 'ended' });
  });

  it('waits for a line that has not arrived yet', async () => {
    const input = new PassThrough();
    reader = new LineReader(input);
    const next = reader.next();
    input.write('later\n');
    expect(await next).toEqual({ status: 'line', text: 'later' });
  });

  it('reads a last line that has no newline, and strips Windows line endings', async () => {
    const input = new PassThrough();
    input.end('first\r\nlast');
    reader = new LineReader(input);
    expect(await reader.next()).toEqual({ status: 'line', text: 'first' });
    expect(await reader.next()).toEqual({ status: 'line', text: 'last' });
  });

  it('stops waiting when the signal aborts, and keeps the next line for the next read', async () => {
    const input = new PassThrough();
    reader = new LineReader(input);
    const controller = new AbortController();
    const aborted = reader.next(controller.signal);
    controller.abort();
    expect(await aborted).toEqual({ status: 'aborted' });
    input.write('kept\n');
    expect(await reader.next()).toEqual({ status: 'line', text: 'kept' });
  });

  it('ends a waiting read when the stream ends', async () => {
    const input = new PassThrough();
    reader = new LineReader(input);
    const next = reader.next();
    input.end();
    expect(await next).toEqual({ status: 'ended' });
  });
});
