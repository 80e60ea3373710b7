import {
  builtinTools,
  createInterlock,
  openStore as openCoreStore,
  type Clock,
  type ICheckpointStore,
  type Interlock,
  type ApprovalOptions,
  type ModelProvider,
} from '@interlock/core';
import type { WorkflowDefinition } from '@interlock/sdk-types';
import { ChatChannel, chatDemoModel, chatDemoWorkflow } from '@interlock/chat';
import {
  createReleaseAgentModel,
  RELEASE_AGENT_MODEL,
  releaseAgentWorkflow,
  releaseQuestionWorkflow,
} from './demo/web-demo.js';
import { chatChecks, type ApproverDirectory } from './server/auth/approver-directory.js';
import type { WorkflowApprovers } from './server/auth/approvers.js';
import { CHAT_CHANNEL, WEB_CHANNEL } from './server/create-web-server.js';
import { WebUserInteractionHandler } from './web-user-interaction-handler.js';

/** Where the web app keeps threads: a SQLite file, PostgreSQL, or memory (lost at exit). */
export type WebStoreOptions =
  { type: 'sqlite'; path: string } | { type: 'postgres'; url: string; schema?: string } | { type: 'memory' };

export interface WebInterlockOptions {
  store: WebStoreOptions;
  /** The directory the file and shell tools are confined to. */
  workspaceRoot: string;
  /**
   * Models by name. Default: the demo's scripted models, `release` (the release agent) and
   * `default` (the chat agent).
   */
  models?: Record<string, ModelProvider>;
  /** Who may answer which workflow, also in the chat (see the approvers file). */
  workflowApprovers?: WorkflowApprovers | ApproverDirectory;
  /** How long a tool call of the release agent waits for an approver. Default `"10m"`. */
  approvalTimeout?: string | number;
  /** How tool calls are decided, e.g. `{ quorum: { required: 2 } }` for two approvers of HIGH-risk calls (F51). */
  approval?: ApprovalOptions;
  clock?: Clock;
}

/** The web app's engine and what the server needs around it. */
export interface WebInterlock {
  interlock: Interlock;
  /** The store `interlock` runs on (read for timelines). */
  store: ICheckpointStore;
  handler: WebUserInteractionHandler;
  /** The workflows the page can start. */
  workflows: WorkflowDefinition[];
  /** The chat channel (its handler is registered for the `chat` channel). */
  chat: ChatChannel;
  /** Closes the chat channel, then the engine and its store. */
  close(): Promise<void>;
}

/**
 * Builds the web app's Interlock: the built-in tools, the web channel's handler (which
 * leaves every question pending for the inbox), the chat channel, and the demo workflows.
 *
 * @example
 * const { interlock, store, workflows } = await createWebInterlock({ store: { type: 'sqlite', path: '.interlock/interlock.db' }, workspaceRoot: '.interlock/web-workspace' });
 */
export async function createWebInterlock(options: WebInterlockOptions): Promise<WebInterlock> {
  const store = await openStore(options.store);
  const handler = new WebUserInteractionHandler();
  const interlock = await createInterlock({
    store: { type: 'custom', store },
    models: options.models ?? { [RELEASE_AGENT_MODEL]: createReleaseAgentModel(), default: chatDemoModel() },
    tools: builtinTools,
    handlers: { [WEB_CHANNEL]: handler },
    workspaceRoot: options.workspaceRoot,
    ...(options.approval === undefined ? {} : { approval: options.approval }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  const workflows = [
    interlock.registerWorkflow(
      releaseAgentWorkflow(options.approvalTimeout === undefined ? {} : { approvalTimeout: options.approvalTimeout }),
    ),
    interlock.registerWorkflow(releaseQuestionWorkflow()),
  ];
  const chatWorkflow = interlock.registerWorkflow(chatDemoWorkflow());
  const chat = new ChatChannel({
    interlock,
    workflow: chatWorkflow.id,
    channel: CHAT_CHANNEL,
    ...chatChecks(options.workflowApprovers),
  });
  interlock.setHandler(CHAT_CHANNEL, chat.handler);
  return {
    interlock,
    store,
    handler,
    workflows,
    chat,
    async close() {
      chat.close();
      await interlock.close();
    },
  };
}

function openStore(options: WebStoreOptions): Promise<ICheckpointStore> {
  switch (options.type) {
    case 'sqlite':
      return openCoreStore({ type: 'sqlite', path: options.path });
    case 'postgres':
      return openCoreStore({
        type: 'postgres',
        url: options.url,
        ...(options.schema === undefined ? {} : { schema: options.schema }),
      });
    case 'memory':
      return openCoreStore({ type: 'sqlite', path: ':memory:' });
  }
}
