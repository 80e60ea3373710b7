import { createInterlock, InterlockError, openStore, type Clock, type LoadedProjectConfig } from '@interlock/core';
import type { Interlock, ICheckpointStore } from '@interlock/core';
import type { WorkflowDefinition } from '@interlock/sdk-types';
import { ChatChannel } from '@interlock/chat';
import { chatChecks, type ApproverDirectory } from '../server/auth/approver-directory.js';
import type { WorkflowApprovers } from '../server/auth/approvers.js';
import { CHAT_CHANNEL } from '../server/create-web-server.js';
import type { LiveUpdates } from '../server/live-updates.js';
import type { WebStoreOptions } from '../web-composition-root.js';
import { StartableWorkflows } from './startable-workflows.js';

export interface DeploymentInterlockOptions {
  /** The deployment's store, shared with its workers: PostgreSQL, or a SQLite file on one machine. */
  store: Exclude<WebStoreOptions, { type: 'memory' }>;
  /** The workflow the chat starts (a worker must serve it); without it there is no chat. */
  chatWorkflow?: string;
  /** Who may answer which workflow, also in the chat. */
  workflowApprovers?: WorkflowApprovers | ApproverDirectory;
  /** The project file: its approval rules check edits given here (the workers apply it too). */
  config?: LoadedProjectConfig;
  clock?: Clock;
}

/** How often chats with a queued message look whether their agent asks, besides the store's changes (ms). */
const RELOOK_MS = 2_000;

/** The web app of a deployment: an answerer that runs no thread. */
export interface DeploymentInterlock {
  interlock: Interlock;
  store: ICheckpointStore;
  /** The workflows some live worker serves: the ones the page can start. */
  workflows: () => Promise<readonly WorkflowDefinition[]>;
  /** The chat, when `chatWorkflow` was given: pass it to `createWebServer`, then `followStore(app.liveUpdates)`. */
  chat?: ChatChannel;
  /**
   * Tells the chat of every change the server hears of (its threads run in workers, so only
   * the store tells); `warn` hears of a queued message that could not be given (tried again
   * when the store failed; dropped when the engine refused it).
   */
  followStore(live: LiveUpdates, warn?: (message: string) => void): void;
  close(): Promise<void>;
}

/**
 * Builds the web app's Interlock for a deployment (issue 12): it holds no tools and no
 * models. An answer given in the inbox is stored with the job that continues its thread in a
 * worker serving the workflow (`createWorker`, `interlock worker`); a thread started from the
 * page is handed to such a worker. The workflows come from the workers, through the store.
 *
 * @example
 * const web = await createDeploymentInterlock({ store: { type: 'postgres', url: process.env.DATABASE_URL! } });
 */
export async function createDeploymentInterlock(options: DeploymentInterlockOptions): Promise<DeploymentInterlock> {
  const store = await openStore(
    options.store.type === 'sqlite' ? { type: 'sqlite', path: options.store.path } : options.store,
  );
  const interlock = await createInterlock({
    store: { type: 'custom', store },
    ...(options.config === undefined ? {} : { config: options.config }),
    continueIn: 'workers-only',
    recoverOnStart: false,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  const now = options.clock === undefined ? Date.now : () => (options.clock as Clock).now();
  const startable = new StartableWorkflows(interlock, store, now);
  const chat =
    options.chatWorkflow === undefined
      ? undefined
      : new ChatChannel({
          interlock,
          workflow: options.chatWorkflow,
          channel: CHAT_CHANNEL,
          ...chatChecks(options.workflowApprovers),
          now,
          // A chat may be opened before anyone listed the workflows: register what workers serve now.
          beforeOpen: async () => {
            const served = await startable.list();
            if (!served.some((workflow) => workflow.id === options.chatWorkflow))
              throw new InterlockError(
                'WORKFLOW_NOT_FOUND',
                `no live worker serves the chat's workflow "${String(options.chatWorkflow)}": start one (interlock worker) and try again`,
              );
          },
        });
  let relook: ReturnType<typeof setInterval> | undefined;
  return {
    interlock,
    store,
    workflows: async () => {
      const served = await startable.list();
      // The chat's workflow is started from the chat, not from the page.
      return served.filter((workflow) => workflow.id !== options.chatWorkflow);
    },
    ...(chat === undefined ? {} : { chat }),
    followStore(live, warn = () => undefined) {
      if (chat === undefined) return;
      const report = (error: unknown) =>
        warn(
          `chat: a queued message could not be given to its agent: ${error instanceof Error ? error.message : String(error)}`,
        );
      live.subscribe((change) => {
        if (change.kind === 'chat') return;
        // No thread named: a resync, after changes the store could not tell of (listening
        // began, the listener reconnected, or a store that does not report its changes was
        // looked at): every chat with a queued message looks again, and every chat is shown
        // again (an approval answered elsewhere meanwhile is shown as ended on its platform).
        if (change.threadId !== undefined) {
          chat.heard(change.threadId).catch(report);
          return;
        }
        chat.heardAll().catch(report);
        chat.resync();
      });
      // A look that failed (the store was unreachable) is not repeated by any change to come:
      // chats with a queued message look again now and then until their agent took it.
      let looking = false;
      relook = setInterval(() => {
        // A look the store is slow to answer is not joined by the next.
        if (looking) return;
        looking = true;
        void chat
          .heardAll()
          .catch(report)
          .finally(() => (looking = false));
      }, RELOOK_MS);
      relook.unref();
    },
    async close() {
      clearInterval(relook);
      chat?.close();
      await interlock.close();
    },
  };
}
