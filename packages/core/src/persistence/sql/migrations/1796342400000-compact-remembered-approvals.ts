import type { MigrationInterface } from 'typeorm';
import type { MigrationRunner } from './migration-runner.js';

/** `"schema"."name"` on PostgreSQL with a schema option, `"name"` otherwise (a copy: shipped migrations do not change). */
function qualified(queryRunner: MigrationRunner, name: string): string {
  const schema = queryRunner.connection.driver.schema;
  return schema === undefined ? `"${name}"` : `"${schema}"."${name}"`;
}

/**
 * Remembered approvals are keyed by a hash of their scope, tool and arguments from now on
 * (43 characters, not ~150): the approvals remembered under the old keys are let go (they
 * last a session window; a person is asked again). On SQLite the table is kept WITHOUT
 * ROWID, so its key is stored once, not in the table and again in its index.
 */
export class CompactRememberedApprovals1796342400000 implements MigrationInterface {
  name = 'CompactRememberedApprovals1796342400000';

  async up(queryRunner: MigrationRunner): Promise<void> {
    const table = qualified(queryRunner, 'remembered_approvals');
    if (queryRunner.connection.driver.options?.type === 'postgres') {
      await queryRunner.query(`DELETE FROM ${table}`);
      return;
    }
    await queryRunner.query(`DROP TABLE ${table}`);
    await queryRunner.query(`CREATE TABLE ${table} (
      "key" text NOT NULL,
      "expires_at" bigint NOT NULL,
      CONSTRAINT "pk_remembered_approvals" PRIMARY KEY ("key")
    ) WITHOUT ROWID`);
  }

  async down(queryRunner: MigrationRunner): Promise<void> {
    const table = qualified(queryRunner, 'remembered_approvals');
    if (queryRunner.connection.driver.options?.type === 'postgres') return;
    await queryRunner.query(`DROP TABLE ${table}`);
    await queryRunner.query(`CREATE TABLE ${table} (
      "key" text NOT NULL,
      "expires_at" bigint NOT NULL,
      CONSTRAINT "pk_remembered_approvals" PRIMARY KEY ("key")
    )`);
  }
}
