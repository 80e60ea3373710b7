import { InterlockError } from '../errors/interlock-error.js';
import type { ToolApproveResult, ToolUse } from './approval-options.js';

/** What a `toolApproval` handler on the bus receives (seed 002's request shape). */
export interface ToolApprovalBusRequest {
  toolUse: ToolUse;
  category: string;
  sessionId: string;
  /** As on the tool use (F27): the chat, and the thread that started this one, when there are. */
  chatId?: string;
  parentThreadId?: string;
}

interface Topics {
  toolApproval: { request: ToolApprovalBusRequest; response: ToolApproveResult };
}

type Handler<Topic extends keyof Topics> = (
  request: Topics[Topic]['request'],
) => Topics[Topic]['response'] | Promise<Topics[Topic]['response']>;

/**
 * A request/response bus (seed 002): register one handler per topic; the engine requests
 * `toolApproval` when the pipeline did not decide and no `onToolApprove` callback is set.
 * A handler that ignores `sessionId` keeps working.
 */
export class MessageBus {
  private readonly handlers = new Map<keyof Topics, unknown>();

  /** Registers the handler of a topic; returns a function that removes it. */
  registerHandler<Topic extends keyof Topics>(topic: Topic, handler: Handler<Topic>): () => void {
    this.handlers.set(topic, handler);
    return () => {
      if (this.handlers.get(topic) === handler) this.handlers.delete(topic);
    };
  }

  has(topic: keyof Topics): boolean {
    return this.handlers.has(topic);
  }

  async request<Topic extends keyof Topics>(
    topic: Topic,
    request: Topics[Topic]['request'],
  ): Promise<Topics[Topic]['response']> {
    const handler = this.handlers.get(topic) as Handler<Topic> | undefined; // set only by registerHandler<Topic>
    if (!handler)
      throw new InterlockError('INTERACTION_NO_HANDLER', `no handler is registered on the message bus for "${topic}"`);
    return handler(request);
  }
}
