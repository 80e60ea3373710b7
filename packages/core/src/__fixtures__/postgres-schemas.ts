import pg from 'pg';

/**
 * A test's PostgreSQL clean-up: drops each schema (emptying the list) and its job queue's
 * schema, `<schema>_jobs`, which the store makes beside it.
 */
export async function dropSchemas(url: string | undefined, schemas: string[]): Promise<void> {
  if (!url || schemas.length === 0) return;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    for (const schema of schemas.splice(0)) {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}_jobs" CASCADE`);
    }
  } finally {
    await admin.end();
  }
}
