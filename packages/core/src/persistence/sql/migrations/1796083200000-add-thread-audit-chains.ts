import type { MigrationInterface } from 'typeorm';
import type { MigrationRunner } from './migration-runner.js';

/**
 * `"schema"."table"` on PostgreSQL with a schema option, `"table"` otherwise. A copy of the
 * first migration's helper: a migration that shipped must not change when shared code does.
 */
function tableName(queryRunner: MigrationRunner, table: string): string {
  const schema = queryRunner.connection.driver.schema;
  return schema === undefined ? `"${table}"` : `"${schema}"."${table}"`;
}

/**
 * One audit chain per thread (ADR 0007): an entry's `thread_sequence` and the head of each
 * thread's chain (`audit_thread_heads`, moved by a trigger in the same statement as the
 * insert), so appends of different threads never wait on each other; and the anchors that
 * keep the global order (`audit_anchors`). Entries written before keep their global chain
 * (`thread_sequence` NULL) and the old head. On PostgreSQL a sequence numbers the entries.
 */
export class AddThreadAuditChains1796083200000 implements MigrationInterface {
  name = 'AddThreadAuditChains1796083200000';

  async up(queryRunner: MigrationRunner): Promise<void> {
    const entries = tableName(queryRunner, 'audit_entries');
    const heads = tableName(queryRunner, 'audit_thread_heads');
    const anchors = tableName(queryRunner, 'audit_anchors');
    await queryRunner.query(`ALTER TABLE ${entries} ADD COLUMN "thread_sequence" integer`);
    await queryRunner.query(`CREATE TABLE ${heads} (
      "thread_id" text NOT NULL,
      "thread_sequence" integer NOT NULL,
      "hash" text NOT NULL,
      CONSTRAINT "pk_audit_thread_heads" PRIMARY KEY ("thread_id")
    )`);
    await queryRunner.query(`CREATE TABLE ${anchors} (
      "sequence" integer NOT NULL,
      "at" text NOT NULL,
      "through" integer NOT NULL,
      "digest" text NOT NULL,
      "previous_hash" text NOT NULL,
      "hash" text NOT NULL,
      CONSTRAINT "pk_audit_anchors" PRIMARY KEY ("sequence")
    )`);
    if (queryRunner.connection.driver.options?.type === 'postgres') {
      const schema = queryRunner.connection.driver.schema;
      const sequence = schema === undefined ? '"audit_entries_sequence"' : `"${schema}"."audit_entries_sequence"`;
      const fn = schema === undefined ? '"audit_thread_head"' : `"${schema}"."audit_thread_head"`;
      await queryRunner.query(`CREATE SEQUENCE ${sequence}`);
      await queryRunner.query(
        `SELECT setval('${sequence.replaceAll('"', '')}', GREATEST(COALESCE((SELECT MAX("sequence") FROM ${entries}), 0), 1), (SELECT COUNT(*) > 0 FROM ${entries}))`,
      );
      await queryRunner.query(`CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          INSERT INTO ${heads} ("thread_id", "thread_sequence", "hash") VALUES (NEW."thread_id", NEW."thread_sequence", NEW."hash")
            ON CONFLICT ("thread_id") DO UPDATE SET "thread_sequence" = EXCLUDED."thread_sequence", "hash" = EXCLUDED."hash";
          RETURN NEW;
        END $$`);
      await queryRunner.query(
        `CREATE TRIGGER "audit_thread_head" AFTER INSERT ON ${entries} FOR EACH ROW WHEN (NEW."thread_sequence" IS NOT NULL) EXECUTE FUNCTION ${fn}()`,
      );
    } else {
      await queryRunner.query(`CREATE TRIGGER "audit_thread_head" AFTER INSERT ON ${entries} WHEN NEW."thread_sequence" IS NOT NULL BEGIN
        INSERT INTO ${heads} ("thread_id", "thread_sequence", "hash") VALUES (NEW."thread_id", NEW."thread_sequence", NEW."hash")
          ON CONFLICT ("thread_id") DO UPDATE SET "thread_sequence" = excluded."thread_sequence", "hash" = excluded."hash";
      END`);
    }
  }

  async down(queryRunner: MigrationRunner): Promise<void> {
    const entries = tableName(queryRunner, 'audit_entries');
    if (queryRunner.connection.driver.options?.type === 'postgres') {
      const schema = queryRunner.connection.driver.schema;
      await queryRunner.query(`DROP TRIGGER "audit_thread_head" ON ${entries}`);
      await queryRunner.query(
        `DROP FUNCTION ${schema === undefined ? '"audit_thread_head"' : `"${schema}"."audit_thread_head"`}()`,
      );
      await queryRunner.query(
        `DROP SEQUENCE ${schema === undefined ? '"audit_entries_sequence"' : `"${schema}"."audit_entries_sequence"`}`,
      );
    } else await queryRunner.query(`DROP TRIGGER "audit_thread_head"`);
    await queryRunner.query(`DROP TABLE ${tableName(queryRunner, 'audit_anchors')}`);
    await queryRunner.query(`DROP TABLE ${tableName(queryRunner, 'audit_thread_heads')}`);
    await queryRunner.query(`ALTER TABLE ${entries} DROP COLUMN "thread_sequence"`);
  }
}
