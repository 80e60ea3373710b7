import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createInterlock,
  type ApprovalOptions,
  type Clock,
  type Interlock,
  type ScriptedModel,
  type StoreOptions,
} from '@interlock/core';
import type { InterlockEvent } from '@interlock/sdk-types';
import { ChatChannel } from '../chat-channel.js';
import { chatDemoModel, chatDemoTools, chatDemoWorkflow, type ChatDemoWorkflowOptions } from '../chat-demo.js';
import type { ChatChannelOptions } from '../chat-types.js';

/** A real Interlock with the chat demo workflow and model, and a chat channel registered on `chat`. */
export interface ChatFixture {
  interlock: Interlock;
  chat: ChatChannel;
  model: ScriptedModel;
  workspace: string;
  close(): Promise<void>;
}

export interface ChatFixtureOptions {
  store?: StoreOptions;
  workspace?: string;
  clock?: Clock;
  workflow?: ChatDemoWorkflowOptions;
  canApprove?: ChatChannelOptions['canApprove'];
  /** Default: the chat demo model. */
  model?: ScriptedModel;
  /** The engine's approval options (a quorum, F51). */
  approval?: ApprovalOptions;
}

export async function createChatFixture(options: ChatFixtureOptions = {}): Promise<ChatFixture> {
  const workspace = options.workspace ?? (await mkdtemp(join(tmpdir(), 'interlock-chat-')));
  const model = options.model ?? chatDemoModel();
  const interlock = await createInterlock({
    store: options.store ?? { type: 'memory' },
    models: { default: model },
    tools: chatDemoTools(),
    workspaceRoot: workspace,
    ...(options.approval === undefined ? {} : { approval: options.approval }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  const workflow = interlock.registerWorkflow(chatDemoWorkflow(options.workflow));
  const chat = new ChatChannel({
    interlock,
    workflow: workflow.id,
    ...(options.canApprove === undefined ? {} : { canApprove: options.canApprove }),
    ...(options.clock === undefined ? {} : { now: () => options.clock?.now() ?? Date.now() }),
  });
  interlock.setHandler('chat', chat.handler);
  return {
    interlock,
    chat,
    model,
    workspace,
    close: async () => {
      chat.close();
      await interlock.close();
    },
  };
}

/**
 * Runs `action` and resolves once a thread of the instance stops again (waits for a person,
 * completes, fails or is cancelled): the agent has done what the action set off.
 */
export async function untilSettled<T>(interlock: Interlock, action: () => Promise<T>): Promise<T> {
  let subscription: { unsubscribe(): void } | undefined;
  const stopped = new Promise<InterlockEvent>((resolve) => {
    subscription = interlock.events$.subscribe({
      next: (event) => {
        if (['THREAD_SUSPENDED', 'THREAD_COMPLETED', 'THREAD_FAILED', 'THREAD_CANCELLED'].includes(event.type))
          resolve(event);
      },
    });
  });
  try {
    const result = await action();
    const event = await stopped;
    if (event.type === 'THREAD_FAILED')
      throw new Error(`the thread failed: ${event.error.code} ${event.error.message}`);
    // An answer that raced the run's suspension is applied by a run of its own, right after.
    for (let waited = 0; waited < 5_000; waited += 10) {
      const unapplied = await interlock.interactions({ status: 'responded' });
      const running = await interlock.threads({ status: 'running' });
      if (unapplied.length === 0 && running.length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return result;
  } finally {
    subscription?.unsubscribe();
  }
}

/** The file's text, or undefined when it does not exist. */
export async function readWorkspaceFile(workspace: string, path: string): Promise<string | undefined> {
  return readFile(join(workspace, path), 'utf8').catch(() => undefined);
}

export async function removeWorkspace(workspace: string): Promise<void> {
  await rm(workspace, { recursive: true, force: true });
}

/** The chat demo model, held at its next call while `hold()` is on: the agent is busy. */
export function gatedChatModel(): { model: ScriptedModel; hold(): Promise<void>; release(): void } {
  const inner = chatDemoModel();
  let gate: { opened: Promise<void>; open: () => void; reached: () => void } | undefined;
  return {
    model: {
      name: 'gated',
      requests: inner.requests,
      async complete(request) {
        if (gate) {
          gate.reached();
          await gate.opened;
        }
        return inner.complete(request);
      },
    },
    hold() {
      let reached: () => void = () => undefined;
      let open: () => void = () => undefined;
      const reachedModel = new Promise<void>((resolve) => (reached = resolve));
      const opened = new Promise<void>((resolve) => (open = resolve));
      gate = { opened, open, reached };
      return reachedModel;
    },
    release() {
      gate?.open();
      gate = undefined;
    },
  };
}
