import { tcpPipe } from './tcp-pipe.js';

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
  let refusing = false;
  const pipe = await tcpPipe(target, { admit: () => !refusing });
  return {
    url: pipe.url,
    refuse: () => {
      refusing = true;
    },
    admit: () => {
      refusing = false;
    },
    cut: pipe.cut,
    serverSidePorts: () => [...pipe.open].map((pair) => pair.server.localPort).filter((port) => port !== undefined),
    close: pipe.close,
  };
}
