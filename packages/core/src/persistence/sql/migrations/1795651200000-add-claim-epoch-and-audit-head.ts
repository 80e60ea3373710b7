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
 * Adds the claim's fencing token (`threads.epoch`, incremented by every claim) and the
 * audit chain's head, kept apart from the entries: appenders queue on its row, and a
 * removed tail no longer matches it. The head starts at the chain's current end (sequence 0 for an empty log). The SQL
 * is the same on SQLite and PostgreSQL.
 */
export class AddClaimEpochAndAuditHead1795651200000 implements MigrationInterface {
  name = 'AddClaimEpochAndAuditHead1795651200000';

  async up(queryRunner: MigrationRunner): Promise<void> {
    const threads = tableName(queryRunner, 'threads');
    const auditEntries = tableName(queryRunner, 'audit_entries');
    const auditHead = tableName(queryRunner, 'audit_head');
    await queryRunner.query(`ALTER TABLE ${threads} ADD COLUMN "epoch" integer NOT NULL DEFAULT 0`);
    await queryRunner.query(`CREATE TABLE ${auditHead} (
      "id" integer NOT NULL,
      "sequence" integer NOT NULL,
      "hash" text NOT NULL,
      CONSTRAINT "pk_audit_head" PRIMARY KEY ("id")
    )`);
    // One row from the start (sequence 0 before the first entry), so the first appenders queue on it too.
    await queryRunner.query(
      `INSERT INTO ${auditHead} ("id", "sequence", "hash") SELECT 1, COALESCE(MAX("sequence"), 0), ` +
        `COALESCE((SELECT "hash" FROM ${auditEntries} ORDER BY "sequence" DESC LIMIT 1), '') FROM ${auditEntries}`,
    );
  }

  async down(queryRunner: MigrationRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE ${tableName(queryRunner, 'audit_head')}`);
    await queryRunner.query(`ALTER TABLE ${tableName(queryRunner, 'threads')} DROP COLUMN "epoch"`);
  }
}
