/**
 * Where a service remembers the receipts it took, for `once` (F63): each receipt's `jti`
 * until the receipt expires (a receipt past its `exp` is refused anyway). Back it with what
 * the service's instances share (Redis `SET jti 1 NX PXAT exp`, a table with a unique key)
 * when more than one instance takes calls.
 */
export interface ReceiptSeenStore {
  /**
   * Records `jti` as taken until `expiresAt` (ms since the epoch); `now` is the time of the
   * check. Resolves true the first time, false when it was taken before.
   */
  firstUse(jti: string, expiresAt: number, now: number): boolean | Promise<boolean>;
}

/** A seen-store in this process's memory: for one instance of a service, or a test. */
export function memorySeenStore(): ReceiptSeenStore & { readonly size: number } {
  const seen = new Map<string, number>();
  let checks = 0;
  return {
    get size() {
      return seen.size;
    },
    firstUse(jti, expiresAt, now) {
      // Now and then, forget the receipts that have expired (they are refused before this is asked).
      if (++checks % 256 === 0) for (const [id, until] of seen) if (until <= now) seen.delete(id);
      const until = seen.get(jti);
      if (until !== undefined && until > now) return false;
      seen.set(jti, expiresAt);
      return true;
    },
  };
}
