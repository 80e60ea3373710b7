import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The largest message `interlock mcp serve` reads on stdin: 10 MiB, as the SDK's own transport. */
export const MAX_STDIO_MESSAGE_BYTES = 10 * 1024 * 1024;

/** How much of the end of an oversized line is kept, to find its request id. */
const TAIL_BYTES = 512;

/**
 * The MCP server side of stdio, bounded (issue 24). The SDK's transport closes itself for
 * good on one line over 10 MiB, leaving the process alive and deaf; this one drops that
 * line, answers its request (when the id can be read from the line's end) with an error
 * that says why, and goes on reading the next.
 */
export class BoundedStdioServerTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  private chunks: Buffer[] = [];
  private size = 0;
  /** Set while the rest of an oversized line is being skipped: its last bytes. */
  private skipped: Buffer | undefined;
  private schema: { parse(value: unknown): JSONRPCMessage } | undefined;

  constructor(
    private readonly stdin: Readable = process.stdin,
    private readonly stdout: Writable = process.stdout,
    private readonly maxMessageBytes = MAX_STDIO_MESSAGE_BYTES,
  ) {}

  async start(): Promise<void> {
    this.schema = (await import('@modelcontextprotocol/sdk/types.js')).JSONRPCMessageSchema;
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onStreamError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  close(): Promise<void> {
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onStreamError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.chunks = [];
    this.skipped = undefined;
    this.onclose?.();
    return Promise.resolve();
  }

  private readonly onStreamError = (error: Error) => this.onerror?.(error);

  private readonly onData = (chunk: Buffer) => {
    let offset = 0;
    while (offset < chunk.length) {
      const newline = chunk.indexOf(0x0a, offset);
      const piece = chunk.subarray(offset, newline === -1 ? chunk.length : newline);
      if (this.skipped !== undefined) this.skipped = lastBytes([this.skipped, piece]);
      else if (this.size + piece.length > this.maxMessageBytes) {
        this.skipped = lastBytes([...this.chunks, piece]);
        this.chunks = [];
        this.size = 0;
      } else {
        this.chunks.push(piece);
        this.size += piece.length;
      }
      if (newline === -1) return;
      this.endLine();
      offset = newline + 1;
    }
  };

  private endLine(): void {
    if (this.skipped !== undefined) {
      const id = requestIdAtEnd(this.skipped.toString('utf8'));
      this.skipped = undefined;
      const message = `the message is larger than ${this.maxMessageBytes} bytes: it was dropped; send a smaller one`;
      this.onerror?.(new Error(message));
      if (id !== undefined) void this.send({ jsonrpc: '2.0', id, error: { code: -32600, message } });
      return;
    }
    const line = Buffer.concat(this.chunks).toString('utf8').replace(/\r$/, '');
    this.chunks = [];
    this.size = 0;
    if (line.trim() === '' || this.schema === undefined) return;
    let message: JSONRPCMessage;
    try {
      message = this.schema.parse(JSON.parse(line));
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.onmessage?.(message);
  }
}

function lastBytes(parts: readonly Buffer[]): Buffer {
  const joined = Buffer.concat(parts.map((part) => part.subarray(-TAIL_BYTES)));
  return joined.subarray(-TAIL_BYTES);
}

/** The `id` of a request whose JSON ends with it (`…,"jsonrpc":"2.0","id":7}`), as the SDK writes them. */
function requestIdAtEnd(text: string): string | number | undefined {
  const match = /"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")\s*\}\s*$/.exec(text);
  if (match?.[1] === undefined) return undefined;
  return match[1].startsWith('"') ? (JSON.parse(match[1]) as string) : Number(match[1]);
}
