import { CONTINUE_OPTIONS } from './continue-options.js';
import { parseArgs } from 'node:util';
import { CLI_CHANNEL, DETACHED_CHANNEL } from '../composition-root.js';
import { resolveContinueSettings } from '../continue-settings.js';
import { createEventPrinter } from '../create-event-printer.js';
import { ExitCode } from '../exit-code.js';
import { reportOutcome } from '../outcome-report.js';
import { parseStoreOption } from '../store-option.js';
import { RESUME_HELP } from '../thread-commands-help.js';
import { ThreadNotes } from '../thread-notes.js';
import { ThreadSession } from '../thread-session.js';
import { UsageError } from '../usage-error.js';
import { withWorkflowFallback } from '../workflow-fallback.js';
import { withUsageErrors } from './with-usage-errors.js';

/**
 * `interlock resume <threadId> [--store SPEC] [--json] [--model …] [--mode …] [--workspace DIR]`:
 * continues a waiting or interrupted thread in this process with the terminal handler, so
 * its pending questions are asked here (interactive prompts in a terminal, lines from a pipe).
 *
 * @returns the exit code of the outcome, as `interlock run`.
 * @throws UsageError for a wrong command line.
 */
export async function resumeCommand(argv: string[]): Promise<ExitCode> {
  const { values, positionals } = withUsageErrors('resume', () =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      options: CONTINUE_OPTIONS,
    }),
  );
  if (values.help) {
    process.stdout.write(RESUME_HELP);
    return ExitCode.completed;
  }
  const [threadId, ...extra] = positionals;
  if (threadId === undefined)
    throw new UsageError(
      'interlock resume needs a thread id: interlock resume <threadId> (list them with interlock threads --status waiting)',
      'resume',
    );
  if (extra.length > 0)
    throw new UsageError(`interlock resume takes one thread id, not also ${extra.join(' ')}`, 'resume');
  const json = values.json ?? false;
  const store = parseStoreOption(values.store, 'resume');
  const notes = new ThreadNotes(store.notesDirectory);
  const settings = await resolveContinueSettings(values, await notes.recall(threadId), 'resume');
  const session = await ThreadSession.open({
    store,
    ...settings,
    answerOn: [CLI_CHANNEL, DETACHED_CHANNEL],
    json,
    commandLine: `interlock resume ${threadId}${store.flag}`,
  });
  try {
    const { interlock } = session;
    const record = (await interlock.threads()).find((thread) => thread.threadId === threadId);
    // A thread another app started on its own channel is answered here too.
    if (record !== undefined) session.answerOn(record.channel);
    const resume = () => interlock.resume(threadId);
    const thread = await withWorkflowFallback(interlock, notes, threadId, resume, resume);
    const result = await session.follow(thread, createEventPrinter(json));
    await reportOutcome(session, result, { store, json });
    return result.exitCode;
  } finally {
    await session.close();
  }
}
