import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { dropSchemas } from '../../__fixtures__/postgres-schemas.js';
import { committed, createThread } from '../../testing/conformance/commit-helpers.js';
import { CREATED_AT, interactionRecord, threadRecord } from '../../testing/conformance/store-records.js';
import { ownDatabase } from '../../testing/own-database.js';
import { tcpPipe } from '../../testing/tcp-pipe.js';
import { until } from '../../testing/until.js';
import type { StoreChange } from '../checkpoint-store.js';
import { testPostgresUrl } from './__fixtures__/postgres-harness.js';
import { listenForChanges } from './change-listener.js';
import { createTypeormStore } from './create-typeorm-store.js';

/*
 * Hearing the changes other processes make (issue 12): every change an inbox shows, and over
 * a connection that goes silent: a NAT or a load balancer that drops an idle connection
 * leaves it open at both ends, with no error and no data. The listener must find out,
 * connect again, and say it missed things. PostgreSQL is reached through a TCP proxy of this
 * test that can swallow what is under way.
 */

const url = testPostgresUrl('listening for changes over a connection that goes silent');
const schema = `interlock_listen_${process.pid}_${Date.now().toString(36)}`;
const closers: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});
afterAll(() => dropSchemas(url, [schema]));

/** A TCP proxy to PostgreSQL; `silence()` makes every connection open now carry nothing, both ways, without closing it. */
async function silencingProxy(target: string): Promise<{ url: string; silence(): void; close(): Promise<void> }> {
  const pipe = await tcpPipe(target);
  return {
    url: pipe.url,
    silence: () => {
      for (const pair of pipe.open) pair.silent = true;
    },
    close: pipe.close,
  };
}

if (url !== undefined)
  describe('listening for changes over a connection that goes silent', () => {
    it('finds the silent connection with its heartbeat, connects again, and reports a resync', async () => {
      const store = await createTypeormStore({ type: 'postgres', url, schema });
      closers.push(() => store.close());
      const proxy = await silencingProxy(url);
      closers.push(() => proxy.close());
      const heard: StoreChange[] = [];
      const listening = await listenForChanges(proxy.url, schema, (change) => heard.push(change), {
        heartbeatMs: 500,
      });
      closers.push(() => listening.stop());

      await createThread(store, threadRecord({ threadId: 'before' }));
      await until(
        'the first change',
        async () => heard,
        (seen) => seen.some((change) => change.table === 'threads'),
        5_000,
      );

      proxy.silence();
      await createThread(store, threadRecord({ threadId: 'during' }));
      // The change was made while the old connection was silent: it is not heard as such, but
      // the listener finds the connection dead, listens on a new one, and says to read again.
      await until(
        'a resync',
        async () => heard,
        (seen) => seen.some((change) => change.table === '*'),
        10_000,
      );
      await createThread(store, threadRecord({ threadId: 'after' }));
      await until(
        'a change on the new connection',
        async () => heard,
        (seen) => seen.some((change) => change.table === 'threads' && change.threadId === 'after'),
        5_000,
      );
      // In order: the change before the silence, the resync, then the change on the new connection.
      const order = (found: (change: StoreChange) => boolean) => heard.findIndex(found);
      const before = order((change) => change.table === 'threads' && change.threadId === 'before');
      const resync = order((change) => change.table === '*');
      const after = order((change) => change.table === 'threads' && change.threadId === 'after');
      expect(before).toBeGreaterThanOrEqual(0);
      expect(resync).toBeGreaterThan(before);
      expect(after).toBeGreaterThan(resync);
    }, 30_000);
  });

if (url !== undefined)
  describe('hearing the changes an inbox shows, on a plain URL', () => {
    it('hears an approval that does not end its question, which changes the quorum and not the status (F51)', async () => {
      // Where a team deploys: a plain URL, no schema, and the store's own watch.
      const database = await ownDatabase(url, 'quorum changes');
      closers.push(() => database.drop());
      const store = await createTypeormStore({ type: 'postgres', url: database.url });
      closers.push(() => store.close());
      const heard: StoreChange[] = [];
      const watching = store.watchChanges?.((change) => heard.push(change));
      if (watching === undefined) throw new Error('the PostgreSQL store must report its changes');
      const watch = await watching;
      closers.push(() => watch.stop());
      const ofIt = (seen: StoreChange[]) =>
        seen.filter((change) => change.table === 'interactions' && change.id === 'interaction-1');
      await committed(store, { interactions: [{ kind: 'open', interaction: interactionRecord() }] });
      await until(
        'the question asked',
        async () => heard,
        (seen) => ofIt(seen).length === 1,
        5_000,
      );

      const approval = { responder: 'web:alice', argumentsHash: 'hash', approvedAt: CREATED_AT };
      await committed(store, {
        interactions: [{ kind: 'approve-partially', interactionId: 'interaction-1', approval, seen: 0 }],
      });
      // Still pending, one approval of two: every web server on the database must hear of it.
      await until(
        'the approval heard',
        async () => heard,
        (seen) => ofIt(seen).length === 2,
        5_000,
      );
      expect(ofIt(heard).map((change) => change.table !== '*' && change.status)).toEqual(['pending', 'pending']);
    }, 30_000);
  });
