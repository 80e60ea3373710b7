import { tcpPipe } from '../../../testing/tcp-pipe.js';

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
  let dropping = false;
  const pipe = await tcpPipe(target, { replies: () => !dropping });
  return {
    url: pipe.url,
    dropReplies: () => {
      dropping = true;
    },
    cut: pipe.cut,
    close: pipe.close,
  };
}
