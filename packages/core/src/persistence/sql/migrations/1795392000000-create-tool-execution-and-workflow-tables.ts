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
 * Creates the write-ahead records of tool calls (F40) and the workflow definitions that
 * threads run, so any process can resume a thread without the workflow's file. The SQL is
 * the same on SQLite and PostgreSQL.
 */
export class CreateToolExecutionAndWorkflowTables1795392000000 implements MigrationInterface {
  name = 'CreateToolExecutionAndWorkflowTables1795392000000';

  async up(queryRunner: MigrationRunner): Promise<void> {
    const toolExecutions = tableName(queryRunner, 'tool_executions');
    const workflowDefinitions = tableName(queryRunner, 'workflow_definitions');
    await queryRunner.query(`CREATE TABLE ${toolExecutions} (
      "thread_id" text NOT NULL,
      "tool_call_id" text NOT NULL,
      "tool_name" text NOT NULL,
      "arguments_hash" text NOT NULL,
      "arguments" text NOT NULL,
      "status" text NOT NULL,
      "approved_by" text NOT NULL,
      "idempotent" boolean NOT NULL,
      "outcome" text,
      "created_at" text NOT NULL,
      "updated_at" text NOT NULL,
      CONSTRAINT "pk_tool_executions" PRIMARY KEY ("thread_id", "tool_call_id")
    )`);
    await queryRunner.query(`CREATE INDEX "idx_tool_executions_status" ON ${toolExecutions} ("status")`);
    await queryRunner.query(`CREATE TABLE ${workflowDefinitions} (
      "workflow_id" text NOT NULL,
      "version" text NOT NULL,
      "definition" text NOT NULL,
      "created_at" text NOT NULL,
      CONSTRAINT "pk_workflow_definitions" PRIMARY KEY ("workflow_id", "version")
    )`);
  }

  async down(queryRunner: MigrationRunner): Promise<void> {
    for (const table of ['workflow_definitions', 'tool_executions']) {
      await queryRunner.query(`DROP TABLE ${tableName(queryRunner, table)}`);
    }
  }
}
