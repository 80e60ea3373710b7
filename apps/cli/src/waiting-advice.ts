import type { UserInteractionRequest } from '@interlock/sdk-types';
import { answerHint, summariseRequest } from './pending-view.js';
import type { StoreChoice } from './store-option.js';
import type { TerminalStyle } from './terminal-style.js';

/**
 * What to tell a person whose thread is left waiting: what waits (when the store could
 * still be read), and how to answer it from any terminal or continue it here. For the
 * memory store, that the thread ends with the process.
 *
 * @param pending - the thread's pending requests; empty when unknown.
 * @param pendingIds - the ids the outcome names, used when `pending` is empty.
 */
export function waitingAdvice(options: {
  threadId: string;
  pending: readonly UserInteractionRequest[];
  pendingIds: readonly string[];
  store: StoreChoice;
  style: TerminalStyle;
}): string {
  const { style, store } = options;
  if (!store.durable) {
    return `${style.dim('The store is memory (--store memory): the thread ends with this process. Use the default SQLite store or --store sqlite:<path> to answer it later.')}\n`;
  }
  const lines: string[] = [];
  const ids = options.pending.length > 0 ? options.pending.map((request) => request.interactionId) : options.pendingIds;
  if (options.pending.length > 0) {
    lines.push(style.bold('Waiting for:'));
    for (const request of options.pending)
      lines.push(`  ${request.interactionId}  ${style.dim(summariseRequest(request))}`);
  } else if (ids.length > 0) {
    lines.push(`${style.bold('Waiting for:')} ${ids.join(', ')}`);
  }
  const [first] = options.pending;
  const verb = first === undefined ? 'approve|reject|answer …' : answerHint(first);
  const storeFlag = store.flag;
  if (ids.length === 0) {
    // Stopped between two questions (Ctrl+C mid-run): nothing to answer, the run goes on with resume.
    lines.push(
      style.dim(
        `Nothing waits for an answer: the run stopped between steps. Kept in ${store.label}; continue it with:`,
      ),
      style.dim(`  interlock resume ${options.threadId}${storeFlag}`),
    );
    return `${lines.join('\n')}\n`;
  }
  lines.push(
    style.dim(`Kept in ${store.label}. From any terminal in this directory:`),
    style.dim(`  interlock pending${storeFlag}`),
    style.dim(`  interlock respond ${ids[0] ?? '<interactionId>'} ${verb}${storeFlag}`),
    style.dim(`  interlock resume ${options.threadId}${storeFlag}   (continue it in a terminal)`),
  );
  return `${lines.join('\n')}\n`;
}
