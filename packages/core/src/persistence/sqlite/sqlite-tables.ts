import type BetterSqlite3 from 'better-sqlite3';
import type { ClaimFence } from '../checkpoint-store.js';
import { staleClaim } from '../stale-claim.js';
import type { ThreadJob } from '../../workers/thread-jobs.js';
import { SqliteConnection } from './sqlite-connection.js';
import { SQL } from './sqlite-statements.js';

/** What the SQLite store's parts share: the connection, its prepared statements and the claim check. */
export class SqliteTables {
  readonly connection: SqliteConnection;
  private readonly prepared = new Map<string, BetterSqlite3.Statement>();

  constructor(
    private readonly database: BetterSqlite3.Database,
    options: { busyTimeoutMs: number; groupCommit: boolean },
  ) {
    this.connection = new SqliteConnection(database, options);
  }

  /** The prepared statement of `sql`: prepared on first use, then reused. */
  statement(sql: string): BetterSqlite3.Statement {
    let statement = this.prepared.get(sql);
    if (statement === undefined) {
      statement = this.database.prepare(sql);
      this.prepared.set(sql, statement);
    }
    return statement;
  }

  /**
   * Refuses a write whose claim was taken (STORE_CONFLICT). Called inside the write: this
   * connection holds the database's write lock, so no claim can land between the check and the write.
   */
  checkFence(fence: ClaimFence | undefined): void {
    if (fence === undefined) return;
    const stored = this.statement(SQL.threadEpoch).get(fence.threadId) as { epoch: number } | undefined;
    if (stored?.epoch !== fence.epoch) throw staleClaim(fence);
  }

  /** Schedules `jobs` inside the write being made. */
  insertJobs(jobs: readonly ThreadJob[]): void {
    for (const job of jobs) this.statement(SQL.scheduleJob).run({ interactionId: null, ...job });
  }
}

export function placeholders(count: number): string {
  return Array.from({ length: count }, () => '?').join(', ');
}
