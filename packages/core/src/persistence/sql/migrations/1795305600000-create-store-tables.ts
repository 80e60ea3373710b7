import type { MigrationInterface } from 'typeorm';
import type { MigrationRunner } from './migration-runner.js';

/** `"schema"."table"` on PostgreSQL with a schema option, `"table"` otherwise. */
function tableName(queryRunner: MigrationRunner, table: string): string {
  const schema = queryRunner.connection.driver.schema;
  return schema === undefined ? `"${table}"` : `"${schema}"."${table}"`;
}

/**
 * Creates the store's tables: threads, their conversation one message per row,
 * interactions and global variables. The SQL is the same on SQLite and PostgreSQL.
 */
export class CreateStoreTables1795305600000 implements MigrationInterface {
  name = 'CreateStoreTables1795305600000';

  async up(queryRunner: MigrationRunner): Promise<void> {
    const threads = tableName(queryRunner, 'threads');
    const messages = tableName(queryRunner, 'messages');
    const interactions = tableName(queryRunner, 'interactions');
    const globalVariables = tableName(queryRunner, 'global_variables');
    await queryRunner.query(`CREATE TABLE ${threads} (
      "thread_id" text NOT NULL,
      "workflow_id" text NOT NULL,
      "workflow_version" text NOT NULL,
      "status" text NOT NULL,
      "channel" text NOT NULL,
      "version" integer NOT NULL,
      "state" text NOT NULL,
      "created_at" text NOT NULL,
      "updated_at" text NOT NULL,
      CONSTRAINT "pk_threads" PRIMARY KEY ("thread_id")
    )`);
    await queryRunner.query(`CREATE INDEX "idx_threads_status" ON ${threads} ("status")`);
    await queryRunner.query(`CREATE TABLE ${messages} (
      "thread_id" text NOT NULL,
      "position" integer NOT NULL,
      "message" text NOT NULL,
      "digest" text NOT NULL,
      CONSTRAINT "pk_messages" PRIMARY KEY ("thread_id", "position"),
      CONSTRAINT "fk_messages_thread" FOREIGN KEY ("thread_id") REFERENCES ${threads} ("thread_id") ON DELETE CASCADE
    )`);
    await queryRunner.query(`CREATE TABLE ${interactions} (
      "interaction_id" text NOT NULL,
      "thread_id" text NOT NULL,
      "node_id" text NOT NULL,
      "status" text NOT NULL,
      "deadline" text,
      "request" text NOT NULL,
      "response" text,
      "failure_reason" text,
      "failure_message" text,
      "created_at" text NOT NULL,
      "updated_at" text NOT NULL,
      CONSTRAINT "pk_interactions" PRIMARY KEY ("interaction_id")
    )`);
    await queryRunner.query(`CREATE INDEX "idx_interactions_thread_id" ON ${interactions} ("thread_id")`);
    await queryRunner.query(`CREATE INDEX "idx_interactions_status" ON ${interactions} ("status")`);
    await queryRunner.query(`CREATE TABLE ${globalVariables} (
      "workflow_id" text NOT NULL,
      "name" text NOT NULL,
      "value" text,
      CONSTRAINT "pk_global_variables" PRIMARY KEY ("workflow_id", "name")
    )`);
  }

  async down(queryRunner: MigrationRunner): Promise<void> {
    for (const table of ['global_variables', 'interactions', 'messages', 'threads']) {
      await queryRunner.query(`DROP TABLE ${tableName(queryRunner, table)}`);
    }
  }
}
