import { connect, createServer, type Socket } from 'node:net';

/** A TCP proxy to PostgreSQL that can refuse new connections and cut the open ones. */
export interface TcpGate {
  /** The database URL, through the gate. */
  url: string;
  /** From now on, a new connection is closed as soon as it is made (the open ones go on). */
  refuse(): void;
  /** New connections pass again. */
  admit(): void;
  /** Cuts every connection open now, both ways. */
  cut(): void;
  /** The local ports of the connections to the server open now (`client_port` in pg_stat_activity). */
  serverSidePorts(): number[];
  close(): Promise<void>;
}

export async function tcpGate(target: string): Promise<TcpGate> {
  const url = new URL(target);
  const open = new Set<{ client: Socket; server: Socket }>();
  let refusing = false;
  const gate = createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const server = connect(Number(url.port), url.hostname);
    const pair = { client, server };
    open.add(pair);
    client.on('data', (data) => server.write(data));
    server.on('data', (data) => client.write(data));
    const end = () => {
      open.delete(pair);
      client.destroy();
      server.destroy();
    };
    client.on('close', end).on('error', end);
    server.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => gate.listen(0, '127.0.0.1', resolve));
  const address = gate.address();
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
    refuse: () => {
      refusing = true;
    },
    admit: () => {
      refusing = false;
    },
    cut,
    serverSidePorts: () => [...open].map((pair) => pair.server.localPort).filter((port) => port !== undefined),
    close: async () => {
      const closed = new Promise((resolve) => gate.close(resolve));
      cut();
      await closed;
    },
  };
}
