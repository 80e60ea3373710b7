import type { Message } from '../conversation/message.js';
import type { InterlockEvent } from '../events/events.js';
import type { VariableScope } from '../workflow/variables.js';
import type { UserInteractionHandlerResult, UserInteractionRequest } from './user-interaction-request.js';

/** Anything with RxJS's `subscribe` shape; an RxJS `Observable` is one. */
export interface Subscribable<T> {
  subscribe(observer: { next?: (value: T) => void; error?: (error: unknown) => void; complete?: () => void }): {
    unsubscribe(): void;
  };
}

/**
 * The SDK's side of an interaction (F7): what the engine lends a handler while it asks.
 * A handler may read the thread's variables and conversation; it never sees the engine.
 */
export interface UserInteractionContext {
  readonly threadId: string;
  readonly workflowId: string;
  readonly nodeId: string;
  /** Milliseconds; `0` means no limit. */
  readonly timeout: number;
  /** Aborted when the interaction is answered elsewhere, times out, or the thread is cancelled. */
  readonly signal: AbortSignal;
  readonly conversation: readonly Message[];
  /** Events of this thread while the handler runs. */
  readonly events: Subscribable<InterlockEvent>;
  getVariable(name: string): unknown;
  getVariables(): Readonly<Record<string, unknown>>;
  /** Writes a declared variable in its declared scope (or `scope` when given). */
  setVariable(name: string, value: unknown, scope?: VariableScope): void;
}

/**
 * The app's side of an interaction (F7): get input from a person and return it raw.
 * Implemented by the CLI, the web inbox, chat channels and tests.
 */
export interface IUserInteractionHandler {
  handle(request: UserInteractionRequest, context: UserInteractionContext): Promise<UserInteractionHandlerResult>;
}
