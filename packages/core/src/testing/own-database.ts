/** A PostgreSQL database made for one test: the defaults (`public`, `public_jobs`) are really its own. */
export interface OwnDatabase {
  /** Its URL: the given one with this database, no `?schema=`. */
  url: string;
  /** Its name. */
  name: string;
  /** Drops it, ending the connections still open to it. */
  drop(): Promise<void>;
}

/**
 * Creates a database of its own for a test, owned by the role of `url` (issue 34: a test of a
 * store's defaults cannot share `public` with the others). Created through `adminUrl`, a
 * role that may create databases: `INTERLOCK_TEST_POSTGRES_ADMIN_URL` (scripts/start-postgres.sh
 * prints it) unless given, else `url` itself.
 *
 * @example
 * const database = await ownDatabase(process.env.INTERLOCK_TEST_POSTGRES_URL!, 'defaults');
 * await openStore({ type: 'postgres', url: database.url });
 * await database.drop();
 */
export async function ownDatabase(
  url: string,
  label: string,
  adminUrl = process.env['INTERLOCK_TEST_POSTGRES_ADMIN_URL'] || url,
): Promise<OwnDatabase> {
  const { default: pg } = await import('pg');
  const name = `il_${label.replace(/[^a-z0-9]+/gi, '_').toLowerCase()}_${process.pid}_${Date.now().toString(36)}`.slice(
    0,
    63,
  );
  const owner = decodeURIComponent(new URL(url).username);
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE "${name}"${owner === '' ? '' : ` OWNER "${owner.replaceAll('"', '""')}"`}`);
  const own = new URL(url);
  own.pathname = `/${name}`;
  own.searchParams.delete('schema');
  return {
    url: own.toString(),
    name,
    drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}
