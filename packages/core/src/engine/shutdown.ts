/** The abort reason used when the process closes: waits stay pending in the store. */
export const SHUTDOWN = Symbol.for('interlock.shutdown');

/**
 * The abort reason used when the run's claim was taken by another process (it expired
 * while this process was frozen or cut off): the run stops and writes nothing more.
 */
export const CLAIM_LOST = Symbol.for('interlock.claim-lost');

/** Whether an abort stops the run without deciding anything for the thread (not a cancel). */
export function isStop(reason: unknown): boolean {
  return reason === SHUTDOWN || reason === CLAIM_LOST;
}
