// A view asks the server again before its last answer came back (a live update, an answer, a
// filter, another thread picked), and the answers can arrive in any order. Only the answer to
// the latest question may be drawn: an older one arriving later would draw the past over the
// present (a settled card back in the inbox, or the thread picked before).

/**
 * Wraps `load` so that only its latest call counts: a call resolves to `{ value }` when no
 * later call was made while it waited, and to `undefined` when one was (its failure too is
 * then dropped: the later call's outcome is the one to show).
 * @template {unknown[]} A
 * @template T
 * @param {(...args: A) => Promise<T>} load
 * @returns {(...args: A) => Promise<{ value: T } | undefined>}
 */
export function latestOnly(load) {
  let issued = 0;
  return async (...args) => {
    const call = ++issued;
    try {
      const value = await load(...args);
      return call === issued ? { value } : undefined;
    } catch (error) {
      if (call === issued) throw error;
      return undefined;
    }
  };
}
