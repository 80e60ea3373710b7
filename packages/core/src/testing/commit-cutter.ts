import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL for tests of what an answerer is told (issue 28): once
 * armed, it cuts the connection that stores an
 * answer: at its `COMMIT` (passed on to the server, which commits it, with both connections
 * closed before the server's reply can come back: the client cannot know whether its write is
 * stored), or at the write itself (never passed on: nothing is stored). What a network cut,
 * a failover or a proxy timeout at that instant does.
 */
export interface CommitCutter {
  /** The URL to connect to instead of the server's. */
  url: string;
  /** Cuts the next answer's connection at its commit, or at its write; resolves once it did. */
  arm(at?: 'commit' | 'write'): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the proxy on 127.0.0.1 for the server at `serverUrl`; connect with `url`.
 *
 * @example
 * const cutter = await startCommitCutter(process.env.DATABASE_URL!);
 * const web = await createDeploymentInterlock({ store: { type: 'postgres', url: cutter.url } });
 * const cut = cutter.arm('commit'); // the next answer's COMMIT reaches the server, its reply never comes back
 */
export async function startCommitCutter(serverUrl: string): Promise<CommitCutter> {
  const target = new URL(serverUrl);
  const sockets = new Set<Socket>();
  let armed: { at: 'commit' | 'write'; done: () => void } | undefined;
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    const forget = () => sockets.delete(client) && sockets.delete(upstream);
    client.on('close', forget).on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy()).on('close', () => client.destroy());
    upstream.on('data', (chunk) => client.write(chunk));
    let buffered = Buffer.alloc(0);
    let startup = true;
    let answering = false;
    client.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        // The startup message (and an SSL request before it) has no type byte.
        const header = startup ? 0 : 1;
        if (buffered.length < header + 4) return;
        const length = buffered.readInt32BE(header) + header;
        if (buffered.length < length) return;
        const frame = buffered.subarray(0, length);
        buffered = buffered.subarray(length);
        if (startup) {
          startup = frame.length === 8 && frame.readInt32BE(4) === 80_877_103;
          upstream.write(frame);
          continue;
        }
        const type = String.fromCharCode(frame[0] ?? 0);
        const text = frame.subarray(5).toString('utf8');
        if ((type === 'P' || type === 'Q') && /UPDATE[\s\S]*'responded'/.test(text)) {
          answering = true;
          if (armed?.at === 'write') {
            const { done } = armed;
            armed = undefined;
            upstream.destroy();
            client.destroy();
            done();
            return;
          }
        }
        if (type === 'Q' && text.replace(/\0/g, '').trim().toUpperCase() === 'COMMIT' && answering && armed) {
          const { done } = armed;
          armed = undefined;
          upstream.end(frame);
          client.destroy();
          done();
          return;
        }
        if (type === 'Q' && /^(COMMIT|ROLLBACK)/i.test(text.trim())) answering = false;
        upstream.write(frame);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const url = new URL(serverUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    arm: (at = 'commit') => new Promise<void>((resolve) => (armed = { at, done: resolve })),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
