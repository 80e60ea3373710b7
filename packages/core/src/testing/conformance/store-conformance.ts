import { afterEach, beforeEach, describe } from 'vitest';
import type { ICheckpointStore } from '../../persistence/checkpoint-store.js';
import { describeExecutionsAndDefinitions } from './executions-conformance.js';
import { describeThreadsAndInteractions } from './threads-conformance.js';

/**
 * The behaviour every ICheckpointStore must have, as a vitest suite: run it on each
 * implementation so they cannot drift apart. `makeStore` must return an empty store for
 * every test; `dispose` runs after the test closed it (drop a database, remove a file).
 *
 * @example
 * ```ts
 * describeStoreConformance('in-memory store', async () => new InMemoryCheckpointStore());
 * ```
 */
export function describeStoreConformance(
  name: string,
  makeStore: () => Promise<ICheckpointStore>,
  dispose?: (store: ICheckpointStore) => Promise<void>,
): void {
  describe(`${name} (store conformance)`, () => {
    let store: ICheckpointStore;

    beforeEach(async () => {
      store = await makeStore();
    });

    afterEach(async () => {
      await store.close();
      await dispose?.(store);
    });

    describeThreadsAndInteractions(() => store);
    describeExecutionsAndDefinitions(() => store);
  });
}
