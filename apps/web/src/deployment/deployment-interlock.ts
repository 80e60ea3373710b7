import { createInterlock, openStore, type Clock } from '@interlock/core';
import type { Interlock, ICheckpointStore } from '@interlock/core';
import type { WorkflowDefinition } from '@interlock/sdk-types';
import type { WebStoreOptions } from '../web-composition-root.js';
import { StartableWorkflows } from './startable-workflows.js';

export interface DeploymentInterlockOptions {
  /** The deployment's store, shared with its workers: PostgreSQL, or a SQLite file on one machine. */
  store: Exclude<WebStoreOptions, { type: 'memory' }>;
  clock?: Clock;
}

/** The web app of a deployment: an answerer that runs no thread. */
export interface DeploymentInterlock {
  interlock: Interlock;
  store: ICheckpointStore;
  /** The workflows some live worker serves: the ones the page can start. */
  workflows: () => Promise<readonly WorkflowDefinition[]>;
  close(): Promise<void>;
}

/**
 * Builds the web app's Interlock for a deployment (issue 12): it holds no tools and no
 * models. An answer given in the inbox is stored with the job that continues its thread in a
 * worker serving the workflow (`createWorker`, `interlock worker`); a thread started from the
 * page is handed to such a worker. The workflows come from the workers, through the store.
 *
 * @example
 * const web = await createDeploymentInterlock({ store: { type: 'postgres', url: process.env.DATABASE_URL! } });
 */
export async function createDeploymentInterlock(options: DeploymentInterlockOptions): Promise<DeploymentInterlock> {
  const store = await openStore(options.store.type === 'sqlite' ? { type: 'sqlite', path: options.store.path } : options.store);
  const interlock = await createInterlock({
    store: { type: 'custom', store },
    continueIn: 'workers-only',
    recoverOnStart: false,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  const now = options.clock === undefined ? Date.now : () => (options.clock as Clock).now();
  const startable = new StartableWorkflows(interlock, store, now);
  return {
    interlock,
    store,
    workflows: () => startable.list(),
    close: () => interlock.close(),
  };
}
