import { parseArgs } from 'node:util';
import type { UserInteractionRequest } from '@interlock/sdk-types';
import { createCliInterlock } from '../composition-root.js';
import { ExitCode } from '../exit-code.js';
import { describePendingRequest } from '../pending-view.js';
import { parseStoreOption } from '../store-option.js';
import { colourWanted, createTerminalStyle } from '../terminal-style.js';
import { PENDING_HELP } from '../thread-commands-help.js';
import { UsageError } from '../usage-error.js';
import { withUsageErrors } from './with-usage-errors.js';

/**
 * `interlock pending [--thread ID] [--json] [--store SPEC]`: what waits for a person, oldest
 * first: each interaction's id, thread, node, operation type and prompt, and for tool
 * approvals the tool, arguments, risk and rule. `--json` prints the requests as one array.
 *
 * @throws UsageError for a wrong command line.
 */
export async function pendingCommand(argv: string[]): Promise<ExitCode> {
  const { values, positionals } = withUsageErrors('pending', () =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        thread: { type: 'string' },
        store: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }),
  );
  if (values.help) {
    process.stdout.write(PENDING_HELP);
    return ExitCode.completed;
  }
  if (positionals.length > 0)
    throw new UsageError(
      `interlock pending takes no arguments, not ${positionals.join(' ')} (filter with --thread ID)`,
      'pending',
    );
  const store = parseStoreOption(values.store, 'pending');
  const interlock = await createCliInterlock({ readsOnly: true, store: store.options });
  let pending: UserInteractionRequest[];
  try {
    pending = await interlock.pending();
  } finally {
    await interlock.close();
  }
  const { thread } = values;
  if (thread !== undefined) pending = pending.filter((request) => request.threadId === thread);
  if (values.json) {
    process.stdout.write(`${JSON.stringify(pending)}\n`);
    return ExitCode.completed;
  }
  const style = createTerminalStyle(colourWanted(process.stdout));
  if (pending.length === 0) {
    const note = store.durable ? '' : ' (The memory store starts empty in every process.)';
    process.stdout.write(
      `Nothing waits for an answer in ${store.label}${thread === undefined ? '' : ` for thread ${thread}`}.${note}\n`,
    );
    return ExitCode.completed;
  }
  const count = pending.length === 1 ? '1 interaction waits' : `${pending.length} interactions wait`;
  const blocks = pending.map((request) => describePendingRequest(request, style, store.flag).join('\n'));
  process.stdout.write(`${style.bold(`${count} for an answer in ${store.label}:`)}\n\n${blocks.join('\n\n')}\n`);
  return ExitCode.completed;
}
