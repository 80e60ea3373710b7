import { parseArgs } from 'node:util';
import { readFile } from 'node:fs/promises';
import { verifyAuditChain, type AuditEntry, type AuditEvidence, type AuditVerification } from '@interlock/core';
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
  /** The check of the whole chain, with `--verify`. */
  verification?: AuditVerification;
}

/**
 * `interlock audit [--verify] [--thread ID] [--json] [--store SPEC] [--file FILE]`: the audit
 * trail of tool-call decisions kept in the store, by every process that used it, oldest
 * first; with `--verify`, whether its hash chain holds (the whole chain, also with
 * `--thread`). `--json` prints the heads and anchors with the entries; `--file` reads such a
 * saved copy instead of the store and checks it against them (F45).
 *
 * @returns 0, or 1 when `--verify` finds the chain broken.
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
  const store = values.file === undefined ? parseStoreOption(values.store, 'audit') : undefined;
  let read: { label: string; entries: AuditEntry[]; evidence: AuditEvidence; verification: AuditVerification };
  if (store === undefined) read = await readCopy(values.file as string);
  else {
    const interlock = await createCliInterlock({ readsOnly: true, store: store.options });
    try {
      const exported = await interlock.exportAudit(values.thread === undefined ? {} : { threadId: values.thread });
      read = { label: store.label, ...exported, verification: await interlock.verifyAudit() };
    } finally {
      await interlock.close();
    }
  }
  const { entries, evidence, verification } = read;
  const exitCode = values.verify === true && !verification.valid ? ExitCode.failed : ExitCode.completed;
  if (values.json) {
    const line: AuditJson = {
      store: read.label,
      entries,
      evidence,
      ...(values.verify === true ? { verification } : {}),
    };
    process.stdout.write(`${JSON.stringify(line)}\n`);
    return exitCode;
  }
  const style = createTerminalStyle(colourWanted(process.stdout));
  const lines =
    entries.length === 0
      ? [store === undefined ? `No audit entries in ${read.label}.` : emptyLine(store, values.thread)]
      : entries.map((entry) => entryLine(entry, style));
  if (values.verify === true) lines.push(verificationLine(verification, style));
  process.stdout.write(`${lines.join('\n')}\n`);
  return exitCode;
}

/**
 * A copy `interlock audit --json` saved, verified against the heads and anchors it carries
 * (F45): a copy without them is refused as broken, never taken as whole.
 */
async function readCopy(
  path: string,
): Promise<{ label: string; entries: AuditEntry[]; evidence: AuditEvidence; verification: AuditVerification }> {
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
  return { label: path, entries, evidence: evidence ?? {}, verification };
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
