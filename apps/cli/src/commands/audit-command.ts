import { parseArgs } from 'node:util';
import { readFile } from 'node:fs/promises';
import {
  verifyAuditChain,
  verifyAuditReceipts,
  type AuditEntry,
  type AuditEvidence,
  type AuditVerification,
  type ReceiptAuditCheck,
  type StoredReceipt,
} from '@interlock/core';
import type { JSONWebKeySet } from '@interlock/receipts';
import { createCliInterlock } from '../composition-root.js';
import { ExitCode } from '../exit-code.js';
import { parseStoreOption, type StoreChoice } from '../store-option.js';
import { colourWanted, createTerminalStyle, type TerminalStyle } from '../terminal-style.js';
import { AUDIT_HELP } from '../thread-commands-help.js';
import { UsageError } from '../usage-error.js';
import { withUsageErrors } from './with-usage-errors.js';

/** What `interlock audit --json` prints. */
export interface AuditJson {
  /** The store read, with any password masked (or the file, with `--file`). */
  store: string;
  entries: AuditEntry[];
  /**
   * What the entries are verified against (F45, issue 37): each thread's head and, for the
   * whole trail, the anchors. `interlock audit --verify --file` (or `verifyAuditChain(entries,
   * evidence)`) checks a saved copy with it: entries removed from its end are found.
   */
  evidence: AuditEvidence;
  /** The approval receipts of the calls that ran (F63), each naming the entry that approved it. */
  receipts?: StoredReceipt[];
  /** Every public key the receipts were signed with (retired ones too). */
  keys?: JSONWebKeySet;
  /** The check of the whole chain, with `--verify`. */
  verification?: AuditVerification;
  /** The check of the receipts against the entries and the keys, with `--verify`. */
  receiptCheck?: ReceiptAuditCheck;
}

/** What an audit read comes to: the entries with their evidence and receipts, and their checks. */
interface AuditRead {
  label: string;
  entries: AuditEntry[];
  evidence: AuditEvidence;
  receipts: StoredReceipt[];
  keys: JSONWebKeySet;
  verification: AuditVerification;
  receiptCheck: ReceiptAuditCheck;
}

/**
 * `interlock audit [--verify] [--thread ID] [--json] [--store SPEC] [--file FILE [--jwks FILE]]`:
 * the audit trail of tool-call decisions kept in the store, by every process that used it,
 * oldest first; with `--verify`, whether its hash chain holds (the whole chain, also with
 * `--thread`) and whether each approval receipt names an entry that approved exactly its
 * call, signed by a key of the deployment (F63). `--json` prints the heads and anchors, the
 * receipts and the keys with the entries; `--file` reads such a saved copy instead of the
 * store and checks it against them (F45), offline (`--jwks` gives the keys to trust).
 *
 * @returns 0, or 1 when `--verify` finds the chain or a receipt broken.
 * @throws UsageError for a wrong command line.
 */
export async function auditCommand(argv: string[]): Promise<ExitCode> {
  const { values, positionals } = withUsageErrors('audit', () =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        verify: { type: 'boolean' },
        thread: { type: 'string' },
        store: { type: 'string' },
        file: { type: 'string' },
        jwks: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }),
  );
  if (values.help) {
    process.stdout.write(AUDIT_HELP);
    return ExitCode.completed;
  }
  if (positionals.length > 0)
    throw new UsageError(`interlock audit takes no arguments, not ${positionals.join(' ')}`, 'audit');
  if (values.file !== undefined && (values.store !== undefined || values.thread !== undefined))
    throw new UsageError('--file reads a saved copy: it takes no --store or --thread', 'audit');
  if (values.jwks !== undefined && values.file === undefined)
    throw new UsageError('--jwks checks a saved copy’s receipts (with --file): the store has its own keys', 'audit');
  const store = values.file === undefined ? parseStoreOption(values.store, 'audit') : undefined;
  let read: AuditRead;
  if (store === undefined) read = await readCopy(values.file as string, values.jwks);
  else {
    const interlock = await createCliInterlock({ readsOnly: true, store: store.options });
    try {
      const exported = await interlock.exportAudit(values.thread === undefined ? {} : { threadId: values.thread });
      const receipts = exported.receipts ?? [];
      const keys = exported.keys ?? { keys: [] };
      read = {
        label: store.label,
        entries: exported.entries,
        evidence: exported.evidence,
        receipts,
        keys,
        verification: await interlock.verifyAudit(),
        receiptCheck: await verifyAuditReceipts(exported.entries, receipts, keys),
      };
    } finally {
      await interlock.close();
    }
  }
  const { entries, evidence, verification, receiptCheck } = read;
  const holds = verification.valid && receiptCheck.valid;
  const exitCode = values.verify === true && !holds ? ExitCode.failed : ExitCode.completed;
  if (values.json) {
    const line: AuditJson = {
      store: read.label,
      entries,
      evidence,
      receipts: read.receipts,
      keys: read.keys,
      ...(values.verify === true ? { verification, receiptCheck } : {}),
    };
    process.stdout.write(`${JSON.stringify(line)}\n`);
    return exitCode;
  }
  const style = createTerminalStyle(colourWanted(process.stdout));
  const lines =
    entries.length === 0
      ? [store === undefined ? `No audit entries in ${read.label}.` : emptyLine(store, values.thread)]
      : entries.map((entry) => entryLine(entry, style));
  if (values.verify === true) lines.push(verificationLine(verification, style), receiptsLine(receiptCheck, style));
  process.stdout.write(`${lines.join('\n')}\n`);
  return exitCode;
}

/**
 * A copy `interlock audit --json` saved, verified against the heads and anchors it carries
 * (F45): a copy without them is refused as broken, never taken as whole.
 */
async function readCopy(path: string, jwksPath: string | undefined): Promise<AuditRead> {
  let copy: Partial<AuditJson>;
  try {
    copy = JSON.parse(await readFile(path, 'utf8')) as Partial<AuditJson>;
  } catch (error) {
    throw new UsageError(
      `--file ${path} is not a copy interlock audit --json saved: ${error instanceof Error ? error.message : String(error)}`,
      'audit',
    );
  }
  if (!Array.isArray(copy.entries))
    throw new UsageError(`--file ${path} has no "entries": save it with interlock audit --json`, 'audit');
  const entries = copy.entries;
  const evidence = copy.evidence;
  const verification: AuditVerification =
    evidence === undefined || !Array.isArray(evidence.heads)
      ? {
          valid: false,
          brokenAt: 1,
          reason:
            'the copy has no "evidence" (the heads and anchors its entries are checked against): save it with interlock audit --json',
        }
      : verifyAuditChain(entries, evidence);
  // The receipts are checked offline, against the keys given (--jwks), else those the copy carries (F63).
  const receipts = Array.isArray(copy.receipts) ? copy.receipts : [];
  const keys = jwksPath === undefined ? (copy.keys ?? { keys: [] }) : await readJwks(jwksPath);
  const receiptCheck = await verifyAuditReceipts(entries, receipts, keys);
  return { label: path, entries, evidence: evidence ?? {}, receipts, keys, verification, receiptCheck };
}

async function readJwks(path: string): Promise<JSONWebKeySet> {
  try {
    const jwks = JSON.parse(await readFile(path, 'utf8')) as Partial<JSONWebKeySet>;
    if (Array.isArray(jwks.keys)) return jwks as JSONWebKeySet;
  } catch {
    // Reported below.
  }
  throw new UsageError(`--jwks ${path} is not a JWKS: save one with interlock receipts keys`, 'audit');
}

function emptyLine(store: StoreChoice, threadId: string | undefined): string {
  const which = threadId === undefined ? '' : ` for thread ${threadId}`;
  const note = store.durable ? '' : ' (The memory store starts empty in every process.)';
  return `No audit entries${which} in ${store.label}.${note}`;
}

function entryLine(entry: AuditEntry, style: TerminalStyle): string {
  const outcome = entry.outcome === 'allow' ? style.green('allow') : style.red('deny');
  const responder = entry.responder === undefined ? '' : ` (${entry.responder})`;
  const edited = entry.editedArguments === undefined ? '' : ` · edited to ${JSON.stringify(entry.editedArguments)}`;
  const facts = `thread ${entry.threadId} · ${entry.stage} · decided by ${entry.decidedBy}${responder} · rule ${entry.rule} · ${entry.reason}${edited}`;
  return `#${entry.sequence} ${entry.at} ${outcome} ${style.bold(entry.toolName)} ${style.dim(facts)}`;
}

function verificationLine(verification: AuditVerification, style: TerminalStyle): string {
  if (!verification.valid)
    return style.red(`hash chain BROKEN at entry ${verification.brokenAt}: ${verification.reason}`);
  return style.green(`hash chain intact (${verification.entries} ${verification.entries === 1 ? 'entry' : 'entries'})`);
}

function receiptsLine(check: ReceiptAuditCheck, style: TerminalStyle): string {
  if (!check.valid) {
    const [first] = check.problems;
    const where = first?.threadId === undefined ? '' : ` (thread ${first.threadId}, call ${first.toolCallId ?? '?'})`;
    return style.red(
      `receipts BROKEN: ${String(check.problems.length)} of ${String(check.receipts)} do not hold${where}: ${first?.reason ?? ''}`,
    );
  }
  return style.green(
    `receipts verified (${String(check.receipts)} ${check.receipts === 1 ? 'receipt' : 'receipts'}, each naming the entry that approved its call)`,
  );
}
