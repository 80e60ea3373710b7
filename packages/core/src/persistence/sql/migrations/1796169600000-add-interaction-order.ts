import type { MigrationInterface } from 'typeorm';
import type { MigrationRunner } from './migration-runner.js';

/** `"schema"."name"` on PostgreSQL with a schema option, `"name"` otherwise (a copy: shipped migrations do not change). */
function qualified(queryRunner: MigrationRunner, name: string): string {
  const schema = queryRunner.connection.driver.schema;
  return schema === undefined ? `"${name}"` : `"${schema}"."${name}"`;
}

/**
 * The order interactions were stored in, for those created at the same moment (the questions
 * of one batch list in the order of their calls). SQLite has it in each row's rowid and leaves
 * the column NULL; PostgreSQL, which has no such thing, numbers each new interaction from the
 * sequence `interactions_stored_order` (in the commit function), and numbers the interactions
 * stored before this migration by their moment and id.
 */
export class AddInteractionOrder1796169600000 implements MigrationInterface {
  name = 'AddInteractionOrder1796169600000';

  async up(queryRunner: MigrationRunner): Promise<void> {
    const interactions = qualified(queryRunner, 'interactions');
    await queryRunner.query(`ALTER TABLE ${interactions} ADD COLUMN "stored_order" bigint`);
    if (queryRunner.connection.driver.options?.type !== 'postgres') return;
    const sequence = qualified(queryRunner, 'interactions_stored_order');
    await queryRunner.query(`CREATE SEQUENCE ${sequence}`);
    await queryRunner.query(
      `UPDATE ${interactions} AS i SET "stored_order" = o.n FROM (SELECT "interaction_id", row_number() OVER (ORDER BY "created_at" COLLATE "C", "interaction_id" COLLATE "C") AS n FROM ${interactions}) AS o WHERE o."interaction_id" = i."interaction_id"`,
    );
    await queryRunner.query(
      `SELECT setval('${sequence.replaceAll('"', '')}', GREATEST(COALESCE((SELECT MAX("stored_order") FROM ${interactions}), 0), 1), (SELECT COUNT(*) > 0 FROM ${interactions}))`,
    );
  }

  async down(queryRunner: MigrationRunner): Promise<void> {
    if (queryRunner.connection.driver.options?.type === 'postgres')
      await queryRunner.query(`DROP SEQUENCE ${qualified(queryRunner, 'interactions_stored_order')}`);
    await queryRunner.query(`ALTER TABLE ${qualified(queryRunner, 'interactions')} DROP COLUMN "stored_order"`);
  }
}
