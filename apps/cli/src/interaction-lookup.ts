import type { UserInteractionRequest } from '@interlock/sdk-types';
import { createCliInterlock } from './composition-root.js';
import type { StoreChoice } from './store-option.js';

/**
 * The request of an interaction that is still pending, read with a short-lived Interlock on
 * the store; undefined when it is answered, expired or unknown. The CLI needs it before it
 * builds the Interlock that answers: that one gets the workspace, mode and model of the
 * request's thread, and the terminal handler on the thread's channel
 * (`request.session.channel`). A `getInteraction` in core's public API would make this one read.
 */
export async function lookUpPendingRequest(
  store: StoreChoice,
  interactionId: string,
): Promise<UserInteractionRequest | undefined> {
  if (!store.durable) return undefined;
  // Not timing out overdue interactions here: respond reports them as expired.
  const interlock = await createCliInterlock({ readsOnly: true, store: store.options, recoverOnStart: false });
  try {
    return (await interlock.pending()).find((candidate) => candidate.interactionId === interactionId);
  } finally {
    await interlock.close();
  }
}
