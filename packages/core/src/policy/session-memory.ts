import { hashArguments } from './canonical-arguments.js';

/** Who a remembered approval belongs to. */
export interface MemoryScope {
  channel: string;
  chatId?: string;
}

/**
 * "Remember for this session" for MEDIUM-risk tools (F30): the key is
 * channel:chatId:toolName:hash(arguments), so an approval of one argument set never covers
 * another. Entries expire after the window and are dropped when seen expired.
 */
export class SessionMemory {
  private readonly entries = new Map<string, number>();

  static key(scope: MemoryScope, toolName: string, args: unknown): string {
    return `${scope.channel}:${scope.chatId ?? ''}:${toolName}:${hashArguments(args)}`;
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
