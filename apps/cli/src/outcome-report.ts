import type { StoreChoice } from './store-option.js';
import { colourWanted, createTerminalStyle } from './terminal-style.js';
import type { FollowResult, ThreadSession } from './thread-session.js';
import { waitingAdvice } from './waiting-advice.js';

/**
 * After a thread was followed in this process: when Ctrl+C stopped it or it is left
 * waiting, says so on standard error, then (on standard output, or standard error under
 * `--json`) what waits and how to answer it from another terminal.
 */
export async function reportOutcome(
  session: ThreadSession,
  result: FollowResult,
  options: { store: StoreChoice; json: boolean },
): Promise<void> {
  const { outcome, interrupted, rejectedCall } = result;
  const errorStyle = createTerminalStyle(colourWanted(process.stderr));
  const rejected = rejectedCall === undefined ? '' : `the ${rejectedCall} call was rejected and the run stopped; `;
  if (outcome.status === 'completed' && interrupted) {
    process.stderr.write(
      `${errorStyle.yellow(`Interrupted: ${rejected}the thread had already completed (thread ${outcome.threadId}).`)}\n`,
    );
    return;
  }
  if (outcome.status !== 'waiting') return;
  const message = interrupted
    ? `Interrupted: ${rejected}the thread is left waiting (thread ${outcome.threadId}).`
    : `The thread is left waiting for an answer (thread ${outcome.threadId}).`;
  process.stderr.write(`${errorStyle.yellow(message)}\n`);
  const stream = options.json ? process.stderr : process.stdout;
  stream.write(
    waitingAdvice({
      threadId: outcome.threadId,
      pending: await session.pendingOf(outcome.threadId).catch(() => []),
      pendingIds: outcome.pendingInteractionIds,
      store: options.store,
      style: createTerminalStyle(colourWanted(stream)),
    }),
  );
}
