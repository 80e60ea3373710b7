/**
 * How many messages and actions one person may send through a messaging platform in a
 * minute (F51): past it, what they send is refused (and a refused decision audited) until the
 * oldest of the last minute's leaves the window. Sliding window, per platform user.
 */
export class RateLimit {
  private readonly recent = new Map<string, number[]>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number,
  ) {}

  /** Counts one more for `key`; false (and not counted) when it is over the limit. */
  take(key: string): boolean {
    const now = this.now();
    const kept = (this.recent.get(key) ?? []).filter((at) => now - at < 60_000);
    if (kept.length >= this.perMinute) {
      this.recent.set(key, kept);
      return false;
    }
    kept.push(now);
    this.recent.set(key, kept);
    return true;
  }
}
