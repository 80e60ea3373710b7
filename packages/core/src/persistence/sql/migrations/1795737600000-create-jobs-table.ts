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
 * The jobs of workers (issue 12) when the store is its own queue (SQLite): one row per
 * key, due at `run_at`, locked by a worker until `locked_until`. (On PostgreSQL, jobs live
 * in the job queue's own schema; the table stays empty there.) The SQL is the same on
 * SQLite and PostgreSQL.
 */
export class CreateJobsTable1795737600000 implements MigrationInterface {
  name = 'CreateJobsTable1795737600000';

  async up(queryRunner: MigrationRunner): Promise<void> {
    const jobs = tableName(queryRunner, 'jobs');
    await queryRunner.query(`CREATE TABLE ${jobs} (
      "key" text NOT NULL,
      "kind" text NOT NULL,
      "thread_id" text NOT NULL,
      "workflow_id" text NOT NULL,
      "interaction_id" text,
      "run_at" text NOT NULL,
      "locked_by" text,
      "locked_until" text,
      CONSTRAINT "pk_jobs" PRIMARY KEY ("key")
    )`);
    await queryRunner.query(`CREATE INDEX "idx_jobs_workflow_run_at" ON ${jobs} ("workflow_id", "run_at")`);
  }

  async down(queryRunner: MigrationRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE ${tableName(queryRunner, 'jobs')}`);
  }
}
