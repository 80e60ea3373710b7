import { connect, createServer, type Socket } from 'node:net';

/** One connection through a pipe: the client's socket and the server's; `silent` stops its data both ways. */
export interface PipedConnection {
  client: Socket;
  server: Socket;
  silent: boolean;
}

/** A TCP proxy on 127.0.0.1, the part tcpGate and the tests' other proxies share. */
export interface TcpPipe {
  /** The target URL, with the pipe's port. */
  url: string;
  /** The connections open now. */
  open: ReadonlySet<PipedConnection>;
  /** Cuts every connection open now, both ways. */
  cut(): void;
  /** Stops accepting connections and cuts the open ones. */
  close(): Promise<void>;
}

/**
 * A TCP proxy to the host and port of the URL `target`. `admit()` is asked at each new
 * connection (false: it is closed at once); `replies()` whether what the server sends now
 * reaches the client.
 */
export async function tcpPipe(
  target: string,
  { admit = () => true, replies = () => true }: { admit?: () => boolean; replies?: () => boolean } = {},
): Promise<TcpPipe> {
  const url = new URL(target);
  const open = new Set<PipedConnection>();
  const proxy = createServer((client) => {
    if (!admit()) {
      client.destroy();
      return;
    }
    const server = connect(Number(url.port), url.hostname);
    const pair: PipedConnection = { client, server, silent: false };
    open.add(pair);
    client.on('data', (data) => pair.silent || server.write(data));
    server.on('data', (data) => pair.silent || !replies() || client.write(data));
    const end = () => {
      open.delete(pair);
      client.destroy();
      server.destroy();
    };
    client.on('close', end).on('error', end);
    server.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const address = proxy.address();
  const piped = new URL(url);
  piped.port = String(typeof address === 'object' && address !== null ? address.port : 0);
  const cut = () => {
    for (const pair of open) {
      pair.client.destroy();
      pair.server.destroy();
    }
  };
  return {
    url: piped.toString(),
    open,
    cut,
    close: async () => {
      const closed = new Promise((resolve) => proxy.close(resolve));
      cut();
      await closed;
    },
  };
}
