import { hash } from 'node:crypto';
import { hashArguments } from './canonical-arguments.js';

/** Who a remembered approval belongs to. */
export interface MemoryScope {
  channel: string;
  chatId?: string;
}

/** The scope of a thread's remembered approvals: its channel and its chat (its session when it has no chat). */
export function memoryScopeOf(thread: {
  channel: string;
  session: { chatId?: string | undefined; sessionId: string };
}): MemoryScope {
  return { channel: thread.channel, chatId: thread.session.chatId ?? thread.session.sessionId };
}

/**
 * "Remember for this session" for MEDIUM-risk tools (F30): the key is the SHA-256 of
 * channel:chatId:toolName:hash(tool definition):hash(arguments), so an approval of one
 * argument set never covers another, nor the same name redefined (43 characters stored). Entries expire after the window and are dropped when seen expired.
 */
export class SessionMemory {
  private readonly entries = new Map<string, number>();

  /** The key of an approval of `args` for the tool of this definition (a redefined tool is another key). */
  static key(scope: MemoryScope, tool: { name: string; definitionHash: string }, args: unknown): string {
    const parts = [scope.channel, scope.chatId ?? '', tool.name, tool.definitionHash, hashArguments(args)];
    return hash('sha256', JSON.stringify(parts), 'base64url');
  }

  /**
   * The key of a scope (channel and chat): what a remembered approval's row is filed under, so
   * a commit can hand a worker every approval of one scope (issue 38).
   */
  static scopeKey(scope: MemoryScope): string {
    return hash('sha256', JSON.stringify([scope.channel, scope.chatId ?? '']), 'base64url');
  }

  remember(key: string, now: number, windowMs: number): void {
    this.entries.set(key, now + windowMs);
  }

  has(key: string, now: number): boolean {
    const expiresAt = this.entries.get(key);
    if (expiresAt === undefined) return false;
    if (expiresAt <= now) {
      this.entries.delete(key);
      return false;
    }
    return true;
  }

  get size(): number {
    return this.entries.size;
  }
}
