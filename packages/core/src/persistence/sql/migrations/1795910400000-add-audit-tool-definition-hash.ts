import type { MigrationInterface } from 'typeorm';
import type { MigrationRunner } from './migration-runner.js';

/** `"schema"."table"` on PostgreSQL with a schema option, `"table"` otherwise (a copy: shipped migrations do not change). */
function tableName(queryRunner: MigrationRunner, table: string): string {
  const schema = queryRunner.connection.driver.schema;
  return schema === undefined ? `"${table}"` : `"${schema}"."${table}"`;
}

/**
 * Adds the hash of the tool definition a decision was about (issue 17): an MCP server's
 * tool is pinned by it, so the audit says which definition a person approved.
 */
export class AddAuditToolDefinitionHash1795910400000 implements MigrationInterface {
  name = 'AddAuditToolDefinitionHash1795910400000';

  async up(queryRunner: MigrationRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE ${tableName(queryRunner, 'audit_entries')} ADD COLUMN "tool_definition_hash" text`,
    );
  }

  async down(queryRunner: MigrationRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE ${tableName(queryRunner, 'audit_entries')} DROP COLUMN "tool_definition_hash"`,
    );
  }
}
