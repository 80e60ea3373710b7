import { openStore, servedVersions } from '@interlock/core';
import type { UserInteractionRequest } from '@interlock/sdk-types';
import type { StoreChoice } from './store-option.js';

/** A pending interaction as `interlock respond` needs it before it builds the Interlock that answers. */
export interface PendingLookup {
  request: UserInteractionRequest;
  /** The workflow and version the thread runs. */
  workflow: { id: string; version: string };
  /**
   * Whether a live worker serves that version (a deployment: the CLI answers as the web inbox
   * does, and the worker takes the thread forward).
   */
  served: boolean;
}

/**
 * The request of an interaction that is still pending, read from the store, with the
 * workflow version its thread runs and whether a live worker serves it; undefined when it is
 * answered, expired or unknown. The CLI needs it before it builds the Interlock that answers:
 * that one gets the workspace, mode and model of the request's thread, and the terminal
 * handler on the thread's channel (`request.session.channel`) — or, in a deployment, no
 * thread at all (`continueIn: 'workers-only'`).
 */
export async function lookUpPendingRequest(
  store: StoreChoice,
  interactionId: string,
): Promise<PendingLookup | undefined> {
  if (!store.durable) return undefined;
  // Nothing is timed out here: respond reports an overdue interaction as expired.
  const opened = await openStore(store.options);
  try {
    const interaction = await opened.getInteraction(interactionId);
    if (interaction?.status !== 'pending') return undefined;
    const thread = await opened.getThread(interaction.threadId);
    if (thread === undefined || !thread.pendingInteractionIds.includes(interactionId)) return undefined;
    const workflow = { id: thread.workflowId, version: thread.workflowVersion };
    const served = (await servedVersions(opened, Date.now())).some(
      (entry) => entry.workflowId === workflow.id && entry.version === workflow.version,
    );
    return { request: interaction.request, workflow, served };
  } finally {
    await opened.close();
  }
}
