import { InterlockError, isStoreFailure, type Interlock, type RespondResult } from '@interlock/core';
import type { UserInteractionRequest } from '@interlock/sdk-types';
import type { ChatMemory } from './chat-memory.js';
import type { ChatNotes } from './chat-notes.js';
import type { DeliveredMessage } from './chat-transcript.js';
import type { ReceiveResult } from './chat-types.js';

/** The first question for a message the agent asks that no message was given to yet. */
export function askingFor(memory: ChatMemory, pending: readonly UserInteractionRequest[]) {
  return pending.find(
    (request) => request.operationType === 'ADD_MESSAGE' && !memory.claimed.has(request.interactionId),
  );
}

/**
 * Gives a chat's messages to its agent, oldest first, through `interlock.respond`. A
 * message leaves the queue only once its answer is stored: when the question was answered
 * or expired meanwhile, or the store failed, it stays first in line for the next question.
 */
export class ChatDelivery {
  constructor(
    private readonly interlock: Pick<Interlock, 'respond'>,
    private readonly notes: ChatNotes,
  ) {}

  /** Gives `message` to the agent if it asks (older queued messages first), else queues it. */
  async deliver(
    memory: ChatMemory,
    pending: readonly UserInteractionRequest[],
    message: DeliveredMessage,
  ): Promise<ReceiveResult> {
    memory.queue.push({ id: this.notes.id(), role: 'user', queued: true, ...message });
    const asking = askingFor(memory, pending);
    if (asking === undefined) return { kind: 'agent', queued: true };
    const sent = await this.giveOldest(memory, asking);
    return { kind: 'agent', queued: !sent || memory.queue.length > 0 };
  }

  /**
   * Gives the oldest queued message to the question `asking`; true when its answer was stored.
   * A message the store could not say it stored (see {@link ChatMemory.inDoubt}) is given to
   * the question it may have reached first: the same answer again settles it.
   */
  async giveOldest(memory: ChatMemory, asking: UserInteractionRequest): Promise<boolean> {
    const head = memory.queue.shift();
    if (head === undefined) return false;
    const doubted = memory.inDoubt?.entryId === head.id ? memory.inDoubt.interactionId : undefined;
    const target = doubted ?? asking.interactionId;
    // Shown as given while its answer is stored, not as queued.
    const message: DeliveredMessage = { text: head.text, author: head.author, at: head.at };
    memory.claimed.add(target);
    memory.delivered.push(message);
    const putBack = () => {
      memory.delivered.splice(memory.delivered.indexOf(message), 1);
      memory.queue.unshift(head);
    };
    const tried = { unknown: doubted !== undefined };
    let result: RespondResult;
    try {
      result = await this.respondSurely(target, message, tried);
    } catch (error) {
      if (tried.unknown && isStoreFailure(error)) {
        // Maybe stored: the message stays first in line, for this question only.
        memory.inDoubt = { entryId: head.id, interactionId: target };
        putBack();
      } else if (isStoreFailure(error)) {
        // Nothing was stored: the question stays open, and the message first in line for it.
        memory.claimed.delete(target);
        putBack();
      } else {
        // Refused (not a failure of the store): the message is dropped, and the caller told why.
        memory.claimed.delete(target);
        memory.delivered.splice(memory.delivered.indexOf(message), 1);
      }
      throw error;
    }
    memory.inDoubt = undefined;
    if (result.status === 'accepted') return true;
    // Answered or expired meanwhile: that question is gone, the message waits for the next.
    putBack();
    return doubted === undefined ? false : this.giveOldest(memory, asking);
  }

  /**
   * `respond`, repeated while the database cannot say whether the answer was stored (a short
   * pause between tries): the same answer again is accepted if it was, so a message never
   * reaches two questions. `tried.unknown` tells whether the store was ever unsure.
   */
  private async respondSurely(
    interactionId: string,
    message: DeliveredMessage,
    tried: { unknown: boolean },
  ): Promise<RespondResult> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.interlock.respond(interactionId, message.text, { responder: message.author });
      } catch (error) {
        if (!InterlockError.is(error) || error.code !== 'STORE_OUTCOME_UNKNOWN') throw error;
        tried.unknown = true;
        if (attempt === 3) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
      }
    }
  }
}
