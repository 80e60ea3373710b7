import type { MigrationInterface } from 'typeorm';
import type { MigrationRunner } from './migration-runner.js';

/** The PostgreSQL channel every store of a database notifies changes on; the payload names the schema. */
export const CHANGES_CHANNEL = 'interlock_changes';

function qualified(queryRunner: MigrationRunner, name: string): string {
  const schema = queryRunner.connection.driver.schema;
  return schema === undefined ? `"${name}"` : `"${schema}"."${name}"`;
}

function isPostgres(queryRunner: MigrationRunner): boolean {
  return queryRunner.connection.driver.options?.type === 'postgres';
}

/**
 * Live updates across processes (issue 12), PostgreSQL only: a trigger on `threads` and
 * `interactions` notifies `interlock_changes` when a row is added or its status changes,
 * with `{ schema, table, id, threadId, status }`. A notification is sent at commit, so a
 * listener never hears of a change it cannot read yet. (SQLite has no such thing: its
 * readers look.)
 */
export class NotifyChanges1795824000000 implements MigrationInterface {
  name = 'NotifyChanges1795824000000';

  async up(queryRunner: MigrationRunner): Promise<void> {
    if (!isPostgres(queryRunner)) return;
    for (const [table, id] of [
      ['threads', 'thread_id'],
      ['interactions', 'interaction_id'],
    ] as const) {
      const notify = qualified(queryRunner, `interlock_notify_${table}`);
      await queryRunner.query(`CREATE OR REPLACE FUNCTION ${notify}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM pg_notify('${CHANGES_CHANNEL}', json_build_object(
            'schema', TG_TABLE_SCHEMA, 'table', TG_TABLE_NAME, 'id', NEW."${id}", 'threadId', NEW."thread_id", 'status', NEW."status")::text);
          RETURN NULL;
        END $$`);
      await queryRunner.query(
        `CREATE TRIGGER "interlock_${table}_changed" AFTER INSERT OR UPDATE OF "status" ON ${qualified(queryRunner, table)} FOR EACH ROW EXECUTE FUNCTION ${notify}()`,
      );
    }
  }

  async down(queryRunner: MigrationRunner): Promise<void> {
    if (!isPostgres(queryRunner)) return;
    for (const table of ['threads', 'interactions']) {
      await queryRunner.query(
        `DROP TRIGGER IF EXISTS "interlock_${table}_changed" ON ${qualified(queryRunner, table)}`,
      );
      await queryRunner.query(`DROP FUNCTION IF EXISTS ${qualified(queryRunner, `interlock_notify_${table}`)}()`);
    }
  }
}
