/** The abort reason used when the process closes: waits stay pending in the store. */
export const SHUTDOWN = Symbol.for('interlock.shutdown');
