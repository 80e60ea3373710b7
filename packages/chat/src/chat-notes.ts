import type { ChatMemory } from './chat-memory.js';
import type { ChatNotice } from './chat-reply-router.js';
import type { ChatEntry, ReceiveResult } from './chat-types.js';

/**
 * The lines of a chat only this process knows — notices, consumed yes/no replies, queued
 * messages — each kept after the line it followed. Ids are `note-1`, `note-2`, … across
 * every chat of the channel.
 */
export class ChatNotes {
  private next = 0;

  constructor(private readonly now: () => number) {}

  /** Adds a line after the line `after` (the top when undefined). */
  add(memory: ChatMemory, after: string | undefined, entry: Omit<ChatEntry, 'id' | 'at'>): ChatEntry {
    const full: ChatEntry = { id: this.id(), at: this.isoNow(), ...entry };
    memory.notes.push({ entry: full, after });
    return full;
  }

  /** Shows a notice after the message it answers, and returns it as what `receive` did. */
  tell(memory: ChatMemory, said: string, notice: ChatNotice): ReceiveResult {
    this.add(memory, said, { role: 'notice', text: notice.text });
    return { kind: 'notice', reason: notice.reason, text: notice.text };
  }

  /** Moves a line to follow another one (a reply follows the approval it answered, wherever that line moves). */
  move(memory: ChatMemory, id: string, after: string): void {
    const note = memory.notes.find((candidate) => candidate.entry.id === id);
    if (note) note.after = after;
  }

  /** Drops a line again: a message that goes to the agent is shown from the queue or the conversation instead. */
  drop(memory: ChatMemory, id: string): void {
    memory.notes = memory.notes.filter((note) => note.entry.id !== id);
  }

  /** A new line id. */
  id(): string {
    this.next += 1;
    return `note-${this.next}`;
  }

  isoNow(): string {
    return new Date(this.now()).toISOString();
  }
}

/** The line a new note follows: the last one that is not a queued message. */
export function anchorOf(transcript: readonly ChatEntry[]): string | undefined {
  return transcript.findLast((entry) => entry.queued !== true)?.id;
}
