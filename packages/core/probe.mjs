import pg from 'pg';
const url = 'postgres://interlock:interlock@127.0.0.1:54329/interlock';
const admin = new pg.Client(url); await admin.connect();
const s = (await admin.query("select nspname from pg_namespace where nspname like 'interlock_test_%' and exists (select 1 from pg_proc p where p.pronamespace = pg_namespace.oid and proname='interlock_commit') limit 1")).rows[0]?.nspname;
console.log('schema', s);
