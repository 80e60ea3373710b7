import type { MigrationInterface } from 'typeorm';
import type { MigrationRunner } from './migration-runner.js';

/*
 * SQLite only: its tables need no schema prefix, and this migration keeps its own SQL (a
 * migration that shipped must not change when shared code does).
 */

/** Whether a thread's row (`NEW.` or `OLD.` in a trigger) is of a thread that has not finished. */
const liveThread = (row: string): string => `(${row}"status" IN ('running', 'waiting'))`;

/** How `audit_entries` moves its thread's head, as AddThreadAuditChains1796083200000 created it. */
const AUDIT_HEAD_TRIGGER = `CREATE TRIGGER "audit_thread_head" AFTER INSERT ON "audit_entries" WHEN NEW."thread_sequence" IS NOT NULL BEGIN
        INSERT INTO "audit_thread_heads" ("thread_id", "thread_sequence", "hash") VALUES (NEW."thread_id", NEW."thread_sequence", NEW."hash")
          ON CONFLICT ("thread_id") DO UPDATE SET "thread_sequence" = excluded."thread_sequence", "hash" = excluded."hash";
      END`;

/**
 * SQLite only (issue 38): a commit writes every page it changes to the WAL (and, at
 * synchronous FULL, fsyncs them), so an index that a round trip's commits keep changing
 * costs a page in each. The status indexes now hold only the rows someone looks up, and a
 * commit that does not change who is in one leaves it alone:
 *
 * - threads: `live_threads` lists the threads that have not finished (running or
 *   waiting), kept by triggers on `threads`: a thread's creation and its end write it, a
 *   save between running and waiting does not (an index on the status would change with
 *   it). `idx_threads_status` holds the failed and cancelled threads. Completed threads,
 *   most of the table, are listed by reading it.
 * - interactions: those not processed (pending, responded, failed: what recovery and the
 *   inbox look for).
 * - tool executions: those stopped short of their end (approved, unknown). A call that
 *   starts and finishes, the usual path, is never in it.
 *
 * `audit_thread_heads` is kept WITHOUT ROWID (rebuilt, rows copied): a head is 70 bytes,
 * and a new thread's head is then one b-tree's page, not the table's and its key index's.
 * The other text-keyed tables stay rowid tables: measured from the WAL, WITHOUT ROWID made
 * `tool_executions` and `global_variables` write more pages (their rows, 0.5–1 KB, land in
 * the key's order and split leaves; a rowid table appends), `messages` saved 0.6 pages a
 * round trip, and rows over ~1 KB (a waiting thread, an interaction, a long message) would
 * spill to an overflow page of their own.
 */
export class SqliteFewerPagesPerCommit1796860800000 implements MigrationInterface {
  name = 'SqliteFewerPagesPerCommit1796860800000';

  async up(queryRunner: MigrationRunner): Promise<void> {
    if (queryRunner.connection.driver.options?.type !== 'sqlite') return;
    await queryRunner.query(`CREATE TABLE "live_threads" (
      "thread_id" text NOT NULL,
      CONSTRAINT "pk_live_threads" PRIMARY KEY ("thread_id")
    ) WITHOUT ROWID`);
    await queryRunner.query(
      `INSERT INTO "live_threads" ("thread_id") SELECT "thread_id" FROM "threads" WHERE ${liveThread('')}`,
    );
    await queryRunner.query(`CREATE TRIGGER "threads_live_insert" AFTER INSERT ON "threads" WHEN ${liveThread('NEW.')} BEGIN
        INSERT INTO "live_threads" ("thread_id") VALUES (NEW."thread_id") ON CONFLICT DO NOTHING;
      END`);
    // Fires only when a save moves the thread between live and finished (the WHEN), not on every save.
    await queryRunner.query(`CREATE TRIGGER "threads_live_status" AFTER UPDATE OF "status" ON "threads"
      WHEN ${liveThread('OLD.')} IS NOT ${liveThread('NEW.')} BEGIN
        DELETE FROM "live_threads" WHERE "thread_id" = NEW."thread_id" AND NOT ${liveThread('NEW.')};
        INSERT INTO "live_threads" ("thread_id") SELECT NEW."thread_id" WHERE ${liveThread('NEW.')} ON CONFLICT DO NOTHING;
      END`);
    await queryRunner.query(`CREATE TRIGGER "threads_live_delete" AFTER DELETE ON "threads" BEGIN
        DELETE FROM "live_threads" WHERE "thread_id" = OLD."thread_id";
      END`);
    await queryRunner.query(`DROP INDEX IF EXISTS "idx_threads_status"`);
    await queryRunner.query(
      `CREATE INDEX "idx_threads_status" ON "threads" ("status") WHERE "status" IN ('failed', 'cancelled')`,
    );

    await queryRunner.query(`DROP INDEX IF EXISTS "idx_interactions_status"`);
    await queryRunner.query(
      `CREATE INDEX "idx_interactions_status" ON "interactions" ("status") WHERE "status" <> 'processed'`,
    );
    await queryRunner.query(`DROP INDEX IF EXISTS "idx_tool_executions_status"`);
    await queryRunner.query(
      `CREATE INDEX "idx_tool_executions_status" ON "tool_executions" ("status") WHERE "status" IN ('approved', 'unknown')`,
    );

    // The SQLite way to change a table's kind: a new table, the rows copied, the old one dropped.
    // The trigger that writes heads names the table: dropped first, created again after.
    await queryRunner.query(`DROP TRIGGER IF EXISTS "audit_thread_head"`);
    await queryRunner.query(`CREATE TABLE "audit_thread_heads_rebuilt" (
      "thread_id" text NOT NULL,
      "thread_sequence" integer NOT NULL,
      "hash" text NOT NULL,
      CONSTRAINT "pk_audit_thread_heads" PRIMARY KEY ("thread_id")
    ) WITHOUT ROWID`);
    await queryRunner.query(
      `INSERT INTO "audit_thread_heads_rebuilt" ("thread_id", "thread_sequence", "hash") SELECT "thread_id", "thread_sequence", "hash" FROM "audit_thread_heads"`,
    );
    await queryRunner.query(`DROP TABLE "audit_thread_heads"`);
    await queryRunner.query(`ALTER TABLE "audit_thread_heads_rebuilt" RENAME TO "audit_thread_heads"`);
    await queryRunner.query(AUDIT_HEAD_TRIGGER);
  }

  async down(queryRunner: MigrationRunner): Promise<void> {
    if (queryRunner.connection.driver.options?.type !== 'sqlite') return;
    await queryRunner.query(`DROP TRIGGER "audit_thread_head"`);
    await queryRunner.query(`CREATE TABLE "audit_thread_heads_rebuilt" (
      "thread_id" text NOT NULL,
      "thread_sequence" integer NOT NULL,
      "hash" text NOT NULL,
      CONSTRAINT "pk_audit_thread_heads" PRIMARY KEY ("thread_id")
    )`);
    await queryRunner.query(
      `INSERT INTO "audit_thread_heads_rebuilt" ("thread_id", "thread_sequence", "hash") SELECT "thread_id", "thread_sequence", "hash" FROM "audit_thread_heads"`,
    );
    await queryRunner.query(`DROP TABLE "audit_thread_heads"`);
    await queryRunner.query(`ALTER TABLE "audit_thread_heads_rebuilt" RENAME TO "audit_thread_heads"`);
    await queryRunner.query(AUDIT_HEAD_TRIGGER);

    await queryRunner.query(`DROP INDEX "idx_tool_executions_status"`);
    await queryRunner.query(`CREATE INDEX "idx_tool_executions_status" ON "tool_executions" ("status")`);
    await queryRunner.query(`DROP INDEX "idx_interactions_status"`);
    await queryRunner.query(`CREATE INDEX "idx_interactions_status" ON "interactions" ("status")`);

    await queryRunner.query(`DROP TRIGGER "threads_live_delete"`);
    await queryRunner.query(`DROP TRIGGER "threads_live_status"`);
    await queryRunner.query(`DROP TRIGGER "threads_live_insert"`);
    await queryRunner.query(`DROP TABLE "live_threads"`);
    await queryRunner.query(`DROP INDEX "idx_threads_status"`);
    await queryRunner.query(`CREATE INDEX "idx_threads_status" ON "threads" ("status")`);
  }
}
