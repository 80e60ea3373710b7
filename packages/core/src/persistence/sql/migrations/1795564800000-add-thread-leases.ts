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
 * Adds the thread lease: which process is asking a person about the thread right now, and
 * until when (ThreadLease). The SQL is the same on SQLite and PostgreSQL.
 */
export class AddThreadLeases1795564800000 implements MigrationInterface {
  name = 'AddThreadLeases1795564800000';

  async up(queryRunner: MigrationRunner): Promise<void> {
    const threads = tableName(queryRunner, 'threads');
    await queryRunner.query(`ALTER TABLE ${threads} ADD COLUMN "lease_owner" text`);
    await queryRunner.query(`ALTER TABLE ${threads} ADD COLUMN "lease_until" text`);
  }

  async down(queryRunner: MigrationRunner): Promise<void> {
    const threads = tableName(queryRunner, 'threads');
    await queryRunner.query(`ALTER TABLE ${threads} DROP COLUMN "lease_until"`);
    await queryRunner.query(`ALTER TABLE ${threads} DROP COLUMN "lease_owner"`);
  }
}
