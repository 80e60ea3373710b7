import type { ChatEntry } from './chat-types.js';
import type { DeliveredMessage, LocalNote, SeenApproval } from './chat-transcript.js';

/**
 * What a chat channel keeps about one chat in this process; everything else is read from
 * the store. All of it is ephemeral: after a restart a chat starts with an empty memory and
 * still works (see README.md for what is lost).
 */
export interface ChatMemory {
  chatId: string;
  threadId: string;
  /** Messages the agent has not taken yet (it was busy), oldest first. */
  queue: (ChatEntry & { author: string })[];
  /** Messages given to the agent: who sent them and when (the conversation keeps only the text). */
  delivered: DeliveredMessage[];
  /** Notices and consumed replies, each after the line it followed. */
  notes: LocalNote[];
  /** Tool approvals seen asked or answered, by `toolCallId-stage`. */
  seen: Map<string, SeenApproval>;
  /** ADD_MESSAGE interactions already given a message (by the handler or by `respond`). */
  claimed: Set<string>;
  /**
   * The first queued message, when the store could not say whether its answer to a question
   * was stored (STORE_OUTCOME_UNKNOWN): it is given to that question again, never to another.
   */
  inDoubt?: { entryId: string; interactionId: string } | undefined;
  /** The last numbering of the pending approvals (see `numberApprovals`). */
  numbering: string[] | undefined;
  /** When this process first showed each line (the conversation has no times). */
  firstSeen: Map<string, string>;
}

export function createChatMemory(chatId: string, threadId: string): ChatMemory {
  return {
    chatId,
    threadId,
    queue: [],
    delivered: [],
    notes: [],
    seen: new Map(),
    claimed: new Set(),
    numbering: undefined,
    firstSeen: new Map(),
  };
}
