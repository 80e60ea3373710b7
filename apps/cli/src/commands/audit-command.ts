import { parseArgs } from 'node:util';
import type { AuditEntry, AuditVerification } from '@interlock/core';
import { createCliInterlock } from '../composition-root.js';
import { ExitCode } from '../exit-code.js';
import { parseStoreOption, type StoreChoice } from '../store-option.js';
import { colourWanted, createTerminalStyle, type TerminalStyle } from '../terminal-style.js';
import { AUDIT_HELP } from '../thread-commands-help.js';
import { UsageError } from '../usage-error.js';
import { withUsageErrors } from './with-usage-errors.js';

/** What `interlock audit --json` prints. */
export interface AuditJson {
  /** The store read, with any password masked. */
  store: string;
  entries: AuditEntry[];
  /** The check of the whole chain, with `--verify`. */
  verification?: AuditVerification;
}

/**
 * `interlock audit [--verify] [--thread ID] [--json] [--store SPEC]`: the audit trail of
 * tool-call decisions kept in the store, by every process that used it, oldest first; with
 * `--verify`, whether its hash chain holds (the whole chain, also with `--thread`).
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
  const store = parseStoreOption(values.store, 'audit');
  const interlock = await createCliInterlock({ readsOnly: true, store: store.options });
  let entries: AuditEntry[];
  let verification: AuditVerification;
  try {
    entries = await interlock.audit(values.thread === undefined ? {} : { threadId: values.thread });
    verification = await interlock.verifyAudit();
  } finally {
    await interlock.close();
  }
  const exitCode = values.verify === true && !verification.valid ? ExitCode.failed : ExitCode.completed;
  if (values.json) {
    const line: AuditJson = { store: store.label, entries, ...(values.verify === true ? { verification } : {}) };
    process.stdout.write(`${JSON.stringify(line)}\n`);
    return exitCode;
  }
  const style = createTerminalStyle(colourWanted(process.stdout));
  const lines =
    entries.length === 0 ? [emptyLine(store, values.thread)] : entries.map((entry) => entryLine(entry, style));
  if (values.verify === true) lines.push(verificationLine(verification, style));
  process.stdout.write(`${lines.join('\n')}\n`);
  return exitCode;
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
