import type { ICheckpointStore } from '@interlock/core';

/**
 * A custom store (`createInterlock({ store: { type: 'custom', store } })`) that wraps
 * another and reports every call made to it, with how long it took: the shape of a
 * metrics or tracing wrapper. A custom store must keep every promise the engine relies on;
 * `traced-store.test.ts` checks this one with the conformance suite from
 * `@interlock/core/testing/conformance`, as a store author would.
 *
 * @example
 * const store = tracedStore(await openStore({ type: 'sqlite' }), (method, ms) => metrics.observe(method, ms));
 * const interlock = await createInterlock({ store: { type: 'custom', store } });
 */
export function tracedStore(
  inner: ICheckpointStore,
  report: (method: string, milliseconds: number, failed: boolean) => void,
): ICheckpointStore {
  return new Proxy(inner, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      return async (...args: unknown[]) => {
        const started = performance.now();
        let failed = false;
        try {
          const result = (await (value as (...given: unknown[]) => Promise<unknown>).apply(target, args)) as unknown;
          // A unit of work the store refused (a stale version, an answer given first elsewhere) is a result, not a throw.
          failed = property === 'commit' && (result as { status?: string } | undefined)?.status === 'conflict';
          return result;
        } catch (error) {
          failed = true;
          throw error;
        } finally {
          report(property, performance.now() - started, failed);
        }
      };
    },
  });
}
