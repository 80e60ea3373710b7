#!/usr/bin/env node
/**
 * Issue 18: what each storage change would save, measured on a real file rather than guessed.
 *
 *   cd bench && node --expose-gc scripts/storage-whatif.mjs [--n 1000] [--group-commit true] [--out /tmp/prof18]
 *
 * Runs the fan-out's shape (N threads started at once, then approved at once; with
 * --group-commit true by default, only to be quick: the rows left behind are the same), checks
 * the WAL into the file, and measures bytes per thread (file size / N, like storage-stats.ts).
 * Then, on copies of that file, rewrites the rows the way each proposed change would store
 * them (SQL only: json_remove / unhex / WITHOUT ROWID copies) and measures again, each
 * change alone and then cumulatively. Nothing in core changes: this estimates layout only.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.resolve(here, '..', 'dist');
const { createEngine, startThread, approveThread, requireFromCore } = await import(path.join(dist, 'scenario.js'));
const { rmDb } = await import(path.join(dist, 'common.js'));
const Database = requireFromCore('better-sqlite3');

const flags = {};
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) flags[argv[i].replace(/^--/, '')] = argv[i + 1];
const n = Number(flags.n ?? 1000);
const out = path.resolve(flags.out ?? '/tmp/prof18');
fs.mkdirSync(out, { recursive: true });
const base = path.join(out, `whatif-${n}.db`);

rmDb(base);
const engine = await createEngine('sqlite', base, { groupCommit: flags['group-commit'] !== 'false' });
const ids = Array.from({ length: n }, (_, i) => i);
await Promise.all(ids.map((i) => startThread(engine, i)));
await Promise.all(ids.map((i) => approveThread(engine, i)));
await engine.interlock.close();
{
  const db = new Database(base);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

const size = (file) =>
  ['', '-wal', '-shm'].reduce((a, s) => a + (fs.existsSync(file + s) ? fs.statSync(file + s).size : 0), 0);
const perThread = (file) => Math.round(size(file) / n);
function pages(file) {
  const db = new Database(file, { readonly: true });
  try {
    return Object.fromEntries(
      db
        .prepare('SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC')
        .all()
        .filter((row) => row.bytes / n >= 10)
        .map((row) => [row.name, Math.round(row.bytes / n)]),
    );
  } finally {
    db.close();
  }
}

/** A copy of `from` with `sql` applied and VACUUMed (so freed space leaves the file, as a compact layout would). */
function variant(name, from, sql, vacuum = true) {
  const file = path.join(out, `whatif-${n}-${name}.db`);
  rmDb(file);
  fs.copyFileSync(from, file);
  const db = new Database(file);
  db.pragma('journal_mode = DELETE');
  if (sql) db.exec(sql);
  if (vacuum) db.exec('VACUUM');
  db.close();
  return file;
}

// Each proposed change as SQL on the finished rows.
const changes = {
  // Pages freed when thread rows shrink (waiting ~1.3 KB -> finished ~0.5 KB) stay in the threads b-tree; a compact row layout (or a waiting state without argument copies) would not leave them.
  'vacuum only (no page bloat from shrunk thread rows)': '',
  // Arguments once: a content-addressed tool_arguments(hash BLOB PRIMARY KEY, json) table; tool_executions, audit and the interaction request refer to the hash.
  'arguments once, referred to by hash': `
    CREATE TABLE tool_arguments (hash BLOB PRIMARY KEY, json TEXT NOT NULL) WITHOUT ROWID;
    INSERT OR IGNORE INTO tool_arguments SELECT unhex(arguments_hash), arguments FROM tool_executions;
    UPDATE tool_executions SET arguments = '';
    UPDATE audit_entries SET original_arguments = '';
    UPDATE interactions SET request = json_remove(request, '$.toolApproval.toolParameters');`,
  // The interaction request without what the tool definition already says (description, JSON Schema, category, risk) and without ids/timestamps the row has in columns.
  'interaction request without tool definition and duplicated ids': `
    UPDATE interactions SET request = json_remove(request, '$.toolApproval.toolDescription', '$.toolApproval.parametersSchema', '$.toolApproval.category', '$.toolApproval.riskLevel', '$.interactionId', '$.threadId', '$.workflowId', '$.requestedAt', '$.nodeId', '$.metadata', '$.deadline');`,
  // sha-256 digests as 32-byte BLOBs instead of 64 hex characters.
  'hashes as 32-byte blobs': `
    UPDATE messages SET digest = unhex(digest);
    UPDATE audit_entries SET hash = unhex(hash), previous_hash = unhex(previous_hash);
    UPDATE tool_executions SET arguments_hash = unhex(arguments_hash);`,
  // Audit entry compacted: previous_hash is the previous entry's hash (drop it), the time as integer ms.
  'audit: no previous_hash copy, integer time': `
    UPDATE audit_entries SET previous_hash = '', at = CAST(strftime('%s', at) AS INTEGER) * 1000;`,
  // remembered_approvals keyed by the 32 bytes of its hash, not 43 characters of base64url (the table is WITHOUT ROWID
  // since CompactRememberedApprovals; SQLite cannot decode base64, so random bytes of the same size stand in).
  'remembered approvals: key as 32-byte blob': `
    CREATE TABLE remembered2 (key BLOB PRIMARY KEY, expires_at INTEGER NOT NULL) WITHOUT ROWID;
    INSERT INTO remembered2 SELECT randomblob(32), expires_at FROM remembered_approvals;
    DROP TABLE remembered_approvals;`,
  // Timestamps as integer ms instead of 24-char ISO strings.
  'timestamps as integers': `
    UPDATE threads SET created_at = 1795658807730, updated_at = 1795658807730;
    UPDATE interactions SET created_at = 1795658807730, updated_at = 1795658807730;
    UPDATE tool_executions SET created_at = 1795658807730, updated_at = 1795658807730;`,
  // The tool result's text is in the tool message already: the execution record keeps status and output only.
  'tool execution outcome without the repeated message text': `
    UPDATE tool_executions SET outcome = json_remove(outcome, '$.content');`,
  // The assistant message refers to its call's arguments by hash too (43 chars: base64 of a sha-256) instead of holding them.
  'assistant message refers to the arguments by hash': `
    UPDATE messages SET message = json_set(message, '$.toolCalls[0].arguments', substr(hex(randomblob(32)), 1, 43))
      WHERE json_extract(message, '$.toolCalls[0].id') IS NOT NULL;`,
  // The finished thread's state without copies of workflow facts (definition hash, the workflow's toolApproval config).
  'thread state without workflow copies': `
    UPDATE threads SET state = json_remove(state, '$.frames[0].definitionHash', '$.toolApproval');`,
  // Status indexes that only hold what someone looks up (unfinished rows).
  'partial status indexes': `
    DROP INDEX idx_threads_status; CREATE INDEX idx_threads_status ON threads (status) WHERE status NOT IN ('completed', 'failed', 'cancelled');
    DROP INDEX idx_interactions_status; CREATE INDEX idx_interactions_status ON interactions (status) WHERE status = 'pending';
    DROP INDEX idx_tool_executions_status; CREATE INDEX idx_tool_executions_status ON tool_executions (status) WHERE status <> 'finished';`,
  // What the interaction request repeats from the tool and the thread (the prompt text, batch of one, session).
  'interaction request without derived prompt, batch, session': `
    UPDATE interactions SET request = json_remove(request, '$.prompt', '$.toolApproval.batch', '$.session', '$.timeout', '$.toolApproval.stage');`,
  // Tables keyed by their primary key (WITHOUT ROWID): the key is not stored twice (row + autoindex).
  'WITHOUT ROWID for messages, interactions, tool_executions': `
    CREATE TABLE messages2 (thread_id TEXT NOT NULL, position INTEGER NOT NULL, message TEXT NOT NULL, digest, PRIMARY KEY (thread_id, position)) WITHOUT ROWID;
    INSERT INTO messages2 SELECT thread_id, position, message, digest FROM messages; DROP TABLE messages;
    CREATE TABLE interactions2 (interaction_id TEXT PRIMARY KEY, thread_id, node_id, status, deadline, request, response, failure_reason, failure_message, created_at, updated_at) WITHOUT ROWID;
    INSERT INTO interactions2 SELECT interaction_id, thread_id, node_id, status, deadline, request, response, failure_reason, failure_message, created_at, updated_at FROM interactions; DROP TABLE interactions;
    CREATE INDEX idx_i2_thread ON interactions2 (thread_id); CREATE INDEX idx_i2_status ON interactions2 (status) WHERE status = 'pending';
    CREATE TABLE tool_executions2 (thread_id, tool_call_id, tool_name, arguments_hash, arguments, status, approved_by, idempotent, outcome, created_at, updated_at, PRIMARY KEY (thread_id, tool_call_id)) WITHOUT ROWID;
    INSERT INTO tool_executions2 SELECT thread_id, tool_call_id, tool_name, arguments_hash, arguments, status, approved_by, idempotent, outcome, created_at, updated_at FROM tool_executions; DROP TABLE tool_executions;
    CREATE INDEX idx_te2_status ON tool_executions2 (status) WHERE status <> 'finished';
    ALTER TABLE messages2 RENAME TO messages; ALTER TABLE interactions2 RENAME TO interactions; ALTER TABLE tool_executions2 RENAME TO tool_executions;`,
  // Message digests: only the last one per thread kept (the chain head), the others recomputable.
  'message digest only on the last message': `
    UPDATE messages SET digest = '' WHERE position < (SELECT MAX(position) FROM messages m WHERE m.thread_id = messages.thread_id);`,
};

const results = {
  n,
  baseline_bytes_per_thread: perThread(base),
  baseline_pages: pages(base),
  alone: {},
  cumulative: [],
};
// Each change alone, against the VACUUMed baseline (every variant is VACUUMed).
let vacuumed;
for (const [name, sql] of Object.entries(changes)) {
  const file = variant('alone', base, sql);
  const bytes = perThread(file);
  vacuumed ??= bytes;
  results.alone[name] = {
    bytes_per_thread: bytes,
    saved: (name.startsWith('vacuum') ? results.baseline_bytes_per_thread : vacuumed) - bytes,
  };
  rmDb(file);
}
let current = base;
let previous = results.baseline_bytes_per_thread;
for (const [index, [name, sql]] of Object.entries(Object.entries(changes))) {
  const file = variant(`step${index}`, current, sql);
  const bytes = perThread(file);
  results.cumulative.push({ change: name, bytes_per_thread: bytes, saved: previous - bytes });
  previous = bytes;
  if (current !== base) rmDb(current);
  current = file;
}
results.final_pages = pages(current);
rmDb(current);
rmDb(base);
console.log(JSON.stringify(results, null, 1));
