import { readFile, writeFile } from 'node:fs/promises';
import type { AuditEntry } from '@interlock/core';

/** One call a tool really ran, as the tools of the tests write it down. */
export interface LedgerLine {
  tool: string;
  args: Record<string, unknown>;
}

/** A line as a tool of another process writes it: with the process that ran the call. */
export interface LedgerLineOfProcess extends LedgerLine {
  pid: number;
}

/**
 * A file the tests' tools append what they ran to, one JSON line per call: `lines()` the
 * calls (tool and arguments), `written()` the lines as written (with the `pid` of the
 * process that ran each, where its tool wrote one).
 */
export function ledgerAt(path: string) {
  const written = async (): Promise<LedgerLineOfProcess[]> =>
    (await readFile(path, 'utf8'))
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as LedgerLineOfProcess);
  return {
    path,
    reset: () => writeFile(path, ''),
    record: (tool: string, args: unknown) => writeFile(path, `${JSON.stringify({ tool, args })}\n`, { flag: 'a' }),
    written,
    lines: async (): Promise<LedgerLine[]> => (await written()).map(({ tool, args }) => ({ tool, args })),
  };
}

/** A ledger of {@link ledgerAt}. */
export type Ledger = ReturnType<typeof ledgerAt>;

/**
 * The calls that ran without an `allow` entry of their own in the audit (F62): each call
 * that ran needs one decision that let it run, with the arguments it ran with (the edited
 * ones after an edit). Empty when the audit lists every call that ran.
 */
export function unaudited(ran: readonly LedgerLine[], audit: readonly AuditEntry[]): LedgerLine[] {
  const allows = audit.filter((entry) => entry.outcome === 'allow');
  const missing: LedgerLine[] = [];
  for (const call of ran) {
    const index = allows.findIndex(
      (entry) =>
        entry.toolName === call.tool &&
        JSON.stringify(sorted(entry.editedArguments ?? entry.originalArguments)) === JSON.stringify(sorted(call.args)),
    );
    if (index === -1) missing.push(call);
    else allows.splice(index, 1);
  }
  return missing;
}

function sorted(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).sort(([left], [right]) => left.localeCompare(right)));
}
