import type { MigrationInterface } from 'typeorm';
import type { MigrationRunner } from './migration-runner.js';

/** `"schema"."table"` on PostgreSQL with a schema option, `"table"` otherwise (a copy: shipped migrations do not change). */
function tableName(queryRunner: MigrationRunner, table: string): string {
  const schema = queryRunner.connection.driver.schema;
  return schema === undefined ? `"${table}"` : `"${schema}"."${table}"`;
}

/**
 * Adds the question a decision answered (a person's answer, or a wait that failed): an
 * answer applied again after a crash is audited once, not once per application.
 */
export class AddAuditInteractionId1795996800000 implements MigrationInterface {
  name = 'AddAuditInteractionId1795996800000';

  async up(queryRunner: MigrationRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ${tableName(queryRunner, 'audit_entries')} ADD COLUMN "interaction_id" text`);
  }

  async down(queryRunner: MigrationRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ${tableName(queryRunner, 'audit_entries')} DROP COLUMN "interaction_id"`);
  }
}
