import type { StoreChange } from '../checkpoint-store.js';
import { CHANGES_CHANNEL } from '../sql/migrations/1795824000000-notify-changes.js';

/** How long to wait before connecting again after the listening connection was lost. */
const RECONNECT_MS = 1_000;

export interface ListenOptions {
  /**
   * How often the listening connection is asked a `SELECT 1` (ms), which must come back within
   * the same time. A connection that went silent (a NAT or load balancer dropped it while idle,
   * a half-open TCP connection) reports no error and delivers nothing: this finds it. Default 30 s.
   */
  heartbeatMs?: number;
}

/**
 * Listens, on a connection of its own, for the changes the store's triggers notify (see the
 * NotifyChanges migration) in one schema (the store's placement's), and calls `listener` for each. When the connection
 * is lost (it failed, or went silent: see `heartbeatMs`) it connects again and then reports
 * `{ table: '*' }`: whatever changed meanwhile was not heard, read again. The first
 * connection's failure is thrown.
 */
export async function listenForChanges(
  url: string,
  schema: string,
  listener: (change: StoreChange) => void,
  { heartbeatMs = 30_000 }: ListenOptions = {},
): Promise<{ stop(): Promise<void> }> {
  const { default: pg } = await import('pg');
  type Client = InstanceType<typeof pg.Client>;
  let client: Client | undefined;
  let stopped = false;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let heartbeat: ReturnType<typeof setInterval> | undefined;

  const connect = async (): Promise<void> => {
    const next = new pg.Client({
      connectionString: url,
      application_name: 'interlock-changes',
      connectionTimeoutMillis: 5_000,
      query_timeout: heartbeatMs,
    });
    next.on('notification', (message) => {
      if (message.channel !== CHANGES_CHANNEL || message.payload === undefined) return;
      const change = JSON.parse(message.payload) as {
        schema: string;
        table: 'threads' | 'interactions';
        id: string;
        threadId: string;
        status: string;
      };
      if (change.schema !== schema) return;
      listener({ table: change.table, id: change.id, threadId: change.threadId, status: change.status });
    });
    const lost = () => {
      if (stopped || client !== next) return;
      clearInterval(heartbeat);
      client = undefined;
      next.removeAllListeners('notification');
      void next.end().catch(() => undefined);
      reconnect();
    };
    next.on('error', lost);
    next.on('end', lost);
    try {
      await next.connect();
      await next.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch (error) {
      await next.end().catch(() => undefined);
      throw error;
    }
    // Stopped while this connection was being set up: it must not outlive the listener.
    if (stopped) {
      await next.end().catch(() => undefined);
      return;
    }
    client = next;
    heartbeat = setInterval(() => void next.query('SELECT 1').catch(lost), heartbeatMs);
    heartbeat.unref();
  };

  const reconnect = () => {
    retry = setTimeout(() => {
      if (stopped) return;
      connect().then(
        () => listener({ table: '*' }),
        () => reconnect(),
      );
    }, RECONNECT_MS);
    retry.unref();
  };

  await connect();
  return {
    async stop() {
      stopped = true;
      clearTimeout(retry);
      clearInterval(heartbeat);
      const last = client;
      client = undefined;
      await last?.end().catch(() => undefined);
    },
  };
}
