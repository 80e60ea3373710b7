import type {
  IUserInteractionHandler,
  UserInteractionHandlerResult,
  UserInteractionRequest,
} from '@interlock/sdk-types';

/**
 * The web channel's handler (F16, F43): it announces the request to whoever listens (the
 * inbox's live feed) and leaves it pending — `{ outcome: 'deferred' }` — so the thread
 * waits durably in the store. Approvers answer from the inbox through `interlock.respond`,
 * so an approval survives a restart of the server.
 *
 * @example
 * const handler = new WebUserInteractionHandler();
 * const interlock = await createInterlock({ handlers: { web: handler }, store: { type: 'sqlite' } });
 * handler.onRequest((request) => console.log('waiting:', request.prompt));
 */
export class WebUserInteractionHandler implements IUserInteractionHandler {
  private readonly listeners = new Set<(request: UserInteractionRequest) => void>();

  async handle(request: UserInteractionRequest): Promise<UserInteractionHandlerResult> {
    for (const listener of this.listeners) listener(request);
    return { outcome: 'deferred' };
  }

  /** Calls `listener` with every request announced, until the returned function is called. */
  onRequest(listener: (request: UserInteractionRequest) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
