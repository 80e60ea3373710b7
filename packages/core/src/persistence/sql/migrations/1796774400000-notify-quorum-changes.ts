import type { MigrationInterface } from 'typeorm';
import type { MigrationRunner } from './migration-runner.js';

/*
 * A copy of the shared helpers, as in every migration: a migration that shipped must not
 * change when shared code does.
 */

function qualified(queryRunner: MigrationRunner, name: string): string {
  const schema = queryRunner.connection.driver.schema;
  return schema === undefined ? `"${name}"` : `"${schema}"."${name}"`;
}

/**
 * PostgreSQL only: an interaction's row notifies `interlock_changes` when its `quorum`
 * changes too, not only its status (NotifyChanges1795824000000). An approval that does not
 * end its question ("1 of 2") or an escalation writes `quorum` alone: every web server on the
 * database now hears of it and tells its pages, as it does of an answer.
 */
export class NotifyQuorumChanges1796774400000 implements MigrationInterface {
  name = 'NotifyQuorumChanges1796774400000';

  async up(queryRunner: MigrationRunner): Promise<void> {
    await retrigger(queryRunner, '"status", "quorum"');
  }

  async down(queryRunner: MigrationRunner): Promise<void> {
    await retrigger(queryRunner, '"status"');
  }
}

/** The trigger on `interactions`, on inserts and on updates of `columns`; its function stays. */
async function retrigger(queryRunner: MigrationRunner, columns: string): Promise<void> {
  if (queryRunner.connection.driver.options?.type !== 'postgres') return;
  const table = qualified(queryRunner, 'interactions');
  await queryRunner.query(`DROP TRIGGER IF EXISTS "interlock_interactions_changed" ON ${table}`);
  await queryRunner.query(
    `CREATE TRIGGER "interlock_interactions_changed" AFTER INSERT OR UPDATE OF ${columns} ON ${table} FOR EACH ROW EXECUTE FUNCTION ${qualified(queryRunner, 'interlock_notify_interactions')}()`,
  );
}
