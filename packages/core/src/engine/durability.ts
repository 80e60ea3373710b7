import type { ICheckpointStore } from '../persistence/checkpoint-store.js';
import { failpoint, isArmed, type Failpoint } from './failpoints.js';

/**
 * When a store's writes become durable. A store may keep writes in an open transaction and
 * commit them at the end of the event-loop turn (the SQLite store); the engine makes them
 * durable at once only where it must (docs/architecture.md, "the one rule for every wait"):
 * before a person is asked, before a tool's side effect, when an answer is acknowledged,
 * and when a run stops. Work between these points that a crash loses is deterministic or
 * was never seen by anyone (a model call), and is done again on resume.
 */
export function durable(store: ICheckpointStore, when: 'now' | 'soon' = 'now'): Promise<void> {
  return store.flush?.(when) ?? Promise.resolve();
}

/**
 * A crash-test failpoint at a state the store may commit: when the crash test targets this
 * point, the writes so far are committed first, so the kill lands on that durable state.
 * (In production such a state is committed at the end of the event-loop turn or at the
 * next durable point; recovery must handle it either way.)
 */
export async function failpointAfterCommit(name: Failpoint, store: ICheckpointStore): Promise<void> {
  if (!isArmed(name)) return;
  await durable(store, 'now');
  failpoint(name);
}
