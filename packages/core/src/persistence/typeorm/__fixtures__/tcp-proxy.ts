import { connect, createServer, type Socket } from 'node:net';

/** A TCP proxy to PostgreSQL that can lose the server's answers and cut every connection. */
export interface TcpProxy {
  /** The database URL, through the proxy. */
  url: string;
  /** From now on, what the server sends is dropped (the client waits for an answer that never comes). */
  dropReplies(): void;
  /** Cuts every connection open now, both ways. */
  cut(): void;
  /** Stops accepting connections and cuts the open ones. */
  close(): Promise<void>;
}

export async function tcpProxy(target: string): Promise<TcpProxy> {
  const url = new URL(target);
  const open = new Set<{ client: Socket; server: Socket }>();
  let dropping = false;
  const proxy = createServer((client) => {
    const server = connect(Number(url.port), url.hostname);
    const pair = { client, server };
    open.add(pair);
    client.on('data', (data) => server.write(data));
    server.on('data', (data) => dropping || client.write(data));
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
  const proxied = new URL(url);
  proxied.port = String(typeof address === 'object' && address !== null ? address.port : 0);
  const cut = () => {
    for (const pair of open) {
      pair.client.destroy();
      pair.server.destroy();
    }
  };
  return {
    url: proxied.toString(),
    dropReplies: () => {
      dropping = true;
    },
    cut,
    close: async () => {
      const closed = new Promise((resolve) => proxy.close(resolve));
      cut();
      await closed;
    },
  };
}
