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
 * Creates the hash-chained audit log (F33, F45), whose primary key on `sequence` keeps two
 * processes from appending the same position, and the approvals remembered "for this
 * session". The SQL is the same on SQLite and PostgreSQL.
 */
export class CreateAuditAndRememberedApprovalTables1795478400000 implements MigrationInterface {
  name = 'CreateAuditAndRememberedApprovalTables1795478400000';

  async up(queryRunner: MigrationRunner): Promise<void> {
    const auditEntries = tableName(queryRunner, 'audit_entries');
    const rememberedApprovals = tableName(queryRunner, 'remembered_approvals');
    await queryRunner.query(`CREATE TABLE ${auditEntries} (
      "sequence" integer NOT NULL,
      "thread_id" text NOT NULL,
      "tool_call_id" text NOT NULL,
      "tool_name" text NOT NULL,
      "outcome" text NOT NULL,
      "decided_by" text NOT NULL,
      "rule" text NOT NULL,
      "reason" text NOT NULL,
      "responder" text,
      "stage" text NOT NULL,
      "original_arguments" text NOT NULL,
      "edited_arguments" text,
      "at" text NOT NULL,
      "previous_hash" text NOT NULL,
      "hash" text NOT NULL,
      CONSTRAINT "pk_audit_entries" PRIMARY KEY ("sequence")
    )`);
    await queryRunner.query(`CREATE INDEX "idx_audit_entries_thread_id" ON ${auditEntries} ("thread_id")`);
    await queryRunner.query(`CREATE TABLE ${rememberedApprovals} (
      "key" text NOT NULL,
      "expires_at" bigint NOT NULL,
      CONSTRAINT "pk_remembered_approvals" PRIMARY KEY ("key")
    )`);
  }

  async down(queryRunner: MigrationRunner): Promise<void> {
    for (const table of ['remembered_approvals', 'audit_entries']) {
      await queryRunner.query(`DROP TABLE ${tableName(queryRunner, table)}`);
    }
  }
}
