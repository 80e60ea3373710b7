import { parseArgs } from 'node:util';
import type { ThreadRecord, ThreadStatus } from '@interlock/core';
import { createCliInterlock } from '../composition-root.js';
import { ExitCode } from '../exit-code.js';
import { parseStoreOption } from '../store-option.js';
import { colourWanted, createTerminalStyle, type TerminalStyle } from '../terminal-style.js';
import { THREADS_HELP } from '../thread-commands-help.js';
import { UsageError } from '../usage-error.js';
import { withUsageErrors } from './with-usage-errors.js';

/** The values of `--status`. */
const THREAD_STATUSES: readonly ThreadStatus[] = ['waiting', 'running', 'completed', 'failed', 'cancelled'];

/** One thread as `interlock threads --json` prints it: the record without its conversation, frames and variables. */
export interface ThreadSummary {
  threadId: string;
  workflowId: string;
  workflowVersion: string;
  status: ThreadStatus;
  channel: string;
  pendingInteractionIds: string[];
  steps: number;
  createdAt: string;
  updatedAt: string;
  output?: unknown;
  error?: { code: string; message: string };
}

/**
 * `interlock threads [--status waiting|running|completed|failed|cancelled] [--json] [--store SPEC]`:
 * lists the threads of the store, most recently updated first.
 *
 * @throws UsageError for a wrong command line or status.
 */
export async function threadsCommand(argv: string[]): Promise<ExitCode> {
  const { values, positionals } = withUsageErrors('threads', () =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        status: { type: 'string' },
        store: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }),
  );
  if (values.help) {
    process.stdout.write(THREADS_HELP);
    return ExitCode.completed;
  }
  if (positionals.length > 0)
    throw new UsageError(
      `interlock threads takes no arguments, not ${positionals.join(' ')} (filter with --status)`,
      'threads',
    );
  const status = parseStatus(values.status);
  const store = parseStoreOption(values.store, 'threads');
  const interlock = await createCliInterlock({ readsOnly: true, store: store.options });
  let threads: ThreadRecord[];
  try {
    threads = await interlock.threads(status === undefined ? {} : { status });
  } finally {
    await interlock.close();
  }
  const summaries = threads.map(summarise).sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  if (values.json) {
    process.stdout.write(`${JSON.stringify(summaries)}\n`);
    return ExitCode.completed;
  }
  const style = createTerminalStyle(colourWanted(process.stdout));
  if (summaries.length === 0) {
    const which = status === undefined ? 'No threads' : `No ${status} threads`;
    process.stdout.write(
      `${which} in ${store.label}.${store.durable ? '' : ' (The memory store starts empty in every process.)'}\n`,
    );
    return ExitCode.completed;
  }
  process.stdout.write(table(summaries, style));
  return ExitCode.completed;
}

function parseStatus(value: string | undefined): ThreadStatus | undefined {
  if (value === undefined) return undefined;
  const status = THREAD_STATUSES.find((candidate) => candidate === value);
  if (status === undefined)
    throw new UsageError(
      `--status ${JSON.stringify(value)} is not a status: use one of ${THREAD_STATUSES.join(', ')}`,
      'threads',
    );
  return status;
}

function summarise(thread: ThreadRecord): ThreadSummary {
  return {
    threadId: thread.threadId,
    workflowId: thread.workflowId,
    workflowVersion: thread.workflowVersion,
    status: thread.status,
    channel: thread.channel,
    pendingInteractionIds: [...thread.pendingInteractionIds],
    steps: thread.steps,
    createdAt: thread.createdAt,
    updatedAt: thread.updatedAt,
    ...(thread.output === undefined ? {} : { output: thread.output }),
    ...(thread.error === undefined ? {} : { error: { code: thread.error.code, message: thread.error.message } }),
  };
}

function table(summaries: readonly ThreadSummary[], style: TerminalStyle): string {
  const header = ['THREAD', 'WORKFLOW', 'STATUS', 'UPDATED', 'PENDING'];
  const rows = summaries.map((thread) => [
    thread.threadId,
    `${thread.workflowId}@${thread.workflowVersion}`,
    thread.status,
    thread.updatedAt,
    String(thread.pendingInteractionIds.length),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  const painted = rows.map((row) => {
    const text = line(row);
    const status = row[2];
    if (status === 'waiting') return style.yellow(text);
    if (status === 'failed') return style.red(text);
    return text;
  });
  return `${style.bold(line(header))}\n${painted.join('\n')}\n`;
}
