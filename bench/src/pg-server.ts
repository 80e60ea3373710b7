/**
 * What the PostgreSQL server spent during a measurement (issue 38): the CPU of its processes,
 * read from /proc when it runs on this machine, and the execution time pg_stat_statements
 * counted, when the extension is installed.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { requireFromCore } from './scenario.js';

/** What this file uses of pg (core's copy). */
interface Pg {
  Client: new (options: { connectionString: string }) => {
    connect(): Promise<void>;
    query(sql: string): Promise<unknown>;
    end(): Promise<void>;
  };
}

/**
 * The CPU time of the PostgreSQL server's processes (ms), when it runs on this machine: the
 * postmaster (with what its ended children used) and every live child, read from /proc.
 * Undefined when it cannot be read (another machine, another user's processes).
 */
export async function serverCpu(url: string): Promise<{ read(): number | undefined } | undefined> {
  const pg = requireFromCore('pg') as Pg;
  const stat = (pid: string | number) => {
    try {
      // The fields after the command (which may hold spaces) in parentheses.
      const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return text.slice(text.lastIndexOf(')') + 2).split(' ');
    } catch {
      return undefined;
    }
  };
  // The postmaster is the parent of this connection's backend (read while it lives).
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let postmaster: string | undefined;
  try {
    const result = (await client.query('SELECT pg_backend_pid() AS pid')) as { rows: { pid: number }[] };
    postmaster = stat(result.rows[0]?.pid ?? 0)?.[1];
  } finally {
    await client.end();
  }
  if (postmaster === undefined) return undefined;
  const tick = 1000 / 100; // USER_HZ is 100 on Linux
  return {
    read() {
      const own = stat(postmaster);
      if (own === undefined) return undefined;
      // utime, stime, cutime, cstime: fields 14–17 of /proc/<pid>/stat (index 11–14 after the command).
      let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
      for (const pid of readdirSync('/proc')) {
        if (!/^\d+$/.test(pid)) continue;
        const fields = stat(pid);
        if (fields?.[1] === postmaster) ticks += Number(fields[11]) + Number(fields[12]);
      }
      return ticks * tick;
    },
  };
}

/** The execution time pg_stat_statements counted so far (ms, top-level statements), if the extension is there. */
export async function serverStatements(url: string): Promise<number | undefined> {
  const pg = requireFromCore('pg') as Pg;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = (await client.query('SELECT sum(total_exec_time) AS ms FROM pg_stat_statements WHERE toplevel')) as {
      rows: { ms: string | null }[];
    };
    return Number(result.rows[0]?.ms ?? 0);
  } catch {
    return undefined;
  } finally {
    await client.end();
  }
}
