import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { until } from '../../__fixtures__/until.js';
import { verifyAuditChain } from '../../audit/audit-chain.js';
import { auditDraft } from '../../testing/conformance/commit-audit-conformance.js';
import { committed } from '../../testing/conformance/commit-helpers.js';
import type { ICheckpointStore } from '../checkpoint-store.js';
import { postgresSchemas, testPostgresUrl } from './__fixtures__/postgres-harness.js';

/*
 * Commits from many connections at once (issue 27): appends to different threads' audit
 * chains never wait on each other, appends to one thread queue and stay one chain, and a
 * compare-and-set retried on conflict loses no update.
 */

const url = testPostgresUrl('PostgreSQL commits at once');
if (url !== undefined) describeConcurrency(url);

function describeConcurrency(url: string): void {
  const schemas = postgresSchemas(url);
  const stores: ICheckpointStore[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });
  afterAll(() => schemas.dropAll());

  const open = async (poolSize: number) => {
    const store = await schemas.open({ poolSize });
    stores.push(store);
    return { store, schema: schemas.schemaOf(store) ?? '' };
  };

  describe('PostgreSQL commits at once', () => {
    it("appends 50 threads' audit entries from 4 connections while one thread's chain is locked, none waiting on another's", async () => {
      const { store, schema } = await open(4);
      await committed(store, { audit: [auditDraft('held', 'call-0')] });
      // Another transaction holds the head of thread "held": its appends must wait, no other may.
      const holder = await schemas.admin.connect();
      const holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid ?? 0;
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM "${schema}"."audit_thread_heads" WHERE "thread_id" = 'held' FOR UPDATE`);
      let heldDone = false;
      const held = committed(store, { audit: [auditDraft('held', 'call-1')] }).then((result) => {
        heldDone = true;
        return result;
      });
      const waiting = await until(
        'the append to the held thread to wait',
        async () =>
          (
            await schemas.admin.query<{ pid: number }>(
              `SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`,
              [`%"${schema}"."interlock_commit"%`],
            )
          ).rows.map((row) => row.pid),
        (pids) => pids.length === 1,
        10_000,
      );
      const lockWaits: number[] = [];
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          // Appends blocked by the held chain (its holder, or the append waiting on it); two
          // appends may briefly wait on each other elsewhere, more often on a busy machine.
          const { rows } = await schemas.admin.query<{ waits: number }>(
            `SELECT count(*)::integer AS waits FROM pg_stat_activity a
              WHERE a.query LIKE $1 AND a.pid <> ALL($2::integer[]) AND pg_blocking_pids(a.pid) && $3::integer[]`,
            [`%"${schema}"."interlock_commit"%`, waiting, [holderPid, ...waiting]],
          );
          lockWaits.push(rows[0]?.waits ?? 0);
        }
      })();
      const appended = await Promise.all(
        Array.from({ length: 50 }, (_, index) =>
          committed(store, {
            audit: [auditDraft(`thread-${index}`, 'call-1'), auditDraft(`thread-${index}`, 'call-2')],
          }),
        ),
      );
      sampling = false;
      await sampler;
      expect(heldDone).toBe(false);
      expect(lockWaits.length).toBeGreaterThan(0);
      expect(lockWaits.filter((waits) => waits > 0)).toEqual([]);
      expect(appended.map((result) => result.audit.map((entry) => entry.threadSequence))).toEqual(
        Array.from({ length: 50 }, () => [1, 2]),
      );
      await holder.query('ROLLBACK');
      holder.release();
      expect((await held).audit[0]?.threadSequence).toBe(2);
      const entries = await store.listAuditEntries();
      expect(new Set(entries.map((entry) => entry.sequence)).size).toBe(102);
      expect(verifyAuditChain(entries, await store.readAuditEvidence())).toEqual({ valid: true, entries: 102 });
    });

    it('queues appends to one new thread from many connections into one chain that verifies', async () => {
      const { store } = await open(10);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, index) => committed(store, { audit: [auditDraft('fresh', `call-${index}`)] })),
      );
      expect(results.map((result) => result.audit[0]?.threadSequence).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(
        Array.from({ length: 20 }, (_, index) => index + 1),
      );
      const entries = await store.listAuditEntries({ threadId: 'fresh' });
      expect(verifyAuditChain(entries, await store.readAuditEvidence())).toEqual({ valid: true, entries: 20 });
    });

    it('ends 20 compare-and-set increments from 20 connections at exactly 20, each retried on conflict', async () => {
      const { store } = await open(20);
      let conflicts = 0;
      const read = async () => (await store.getGlobalVariables('workflow-a'))['counter'] as number | undefined;
      const increment = async (current: number | undefined): Promise<void> => {
        const result = await store.commit({
          globals: [
            {
              kind: 'compare-and-set',
              scope: 'workflow-a',
              name: 'counter',
              expected: current,
              value: (current ?? 0) + 1,
            },
          ],
        });
        if (result.status === 'committed') return;
        expect(result.conflict).toEqual({ kind: 'global-changed', scope: 'workflow-a', name: 'counter' });
        conflicts += 1;
        return increment(await read());
      };
      // All read the same value first, so all but one are refused at once; then each retries.
      const seen = await Promise.all(Array.from({ length: 20 }, read));
      await Promise.all(seen.map(increment));
      expect(await store.getGlobalVariables('workflow-a')).toEqual({ counter: 20 });
      expect(conflicts).toBeGreaterThanOrEqual(19);
    });
  });
}
