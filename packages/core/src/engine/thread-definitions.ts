import type { WorkflowDefinition } from '@interlock/sdk-types';
import { InterlockError } from '../errors/interlock-error.js';
import type { ICheckpointStore, ThreadRecord } from '../persistence/checkpoint-store.js';
import { definitionHash } from '../workflow/definition-hash.js';
import type { WorkflowRegistry } from '../workflow/workflow-registry.js';

/**
 * Binds threads to the exact workflow definitions they run. Every definition a thread may
 * run is kept in the store under its id and version, and each frame records the hash of
 * its content: a thread continues only on the content it started with. A definition
 * loaded with the same id and version but other content is refused (WORKFLOW_CHANGED),
 * before anything is stored or run; one with another version is WORKFLOW_VERSION_MISMATCH.
 */
export class ThreadDefinitions {
  /** Definitions (id, version, hash) this process has kept in the store. */
  private readonly kept = new Set<string>();

  constructor(
    private readonly workflows: WorkflowRegistry,
    private readonly store: ICheckpointStore,
    /** Writes a definition (the answer desk's `keepDefinition`). */
    private readonly write: (workflow: WorkflowDefinition) => Promise<unknown>,
  ) {}

  /**
   * Keeps the definitions a new thread may run (the workflow and the SUBGRAPHs it reaches)
   * in the store; refuses one whose id and version are kept with other content.
   */
  async keep(workflow: WorkflowDefinition, seen = new Set<string>()): Promise<void> {
    if (seen.has(workflow.id)) return;
    seen.add(workflow.id);
    const key = `${workflow.id}\u0000${workflow.version}\u0000${definitionHash(workflow)}`;
    if (!this.kept.has(key)) {
      await keepDefinition(this.store, workflow, this.write);
      this.kept.add(key);
    }
    for (const node of workflow.nodes) {
      if (node.type === 'SUBGRAPH') await this.keep(this.workflows.get(node.config.workflow), seen);
    }
  }

  /**
   * Makes sure every workflow the thread runs is loaded with the content it was
   * checkpointed with: from this process's registry, else from the definitions kept in the
   * store. Throws WORKFLOW_CHANGED, WORKFLOW_VERSION_MISMATCH or WORKFLOW_NOT_FOUND.
   */
  async load(thread: ThreadRecord): Promise<void> {
    for (const frame of thread.frames) {
      if (this.workflows.find(frame.workflowId) !== undefined) continue;
      const kept = await this.store.getWorkflowDefinition(frame.workflowId, frame.workflowVersion);
      if (!kept) {
        throw new InterlockError(
          'WORKFLOW_NOT_FOUND',
          `workflow "${frame.workflowId}" version ${frame.workflowVersion} of thread ${thread.threadId} is neither loaded nor kept in the store: load it with interlock.loadWorkflow(path)`,
        );
      }
      this.workflows.register(kept, `the stored definition of workflow "${frame.workflowId}"`);
    }
    this.check(thread);
  }

  /** Refuses, without reading or writing anything, a thread whose loaded definitions are not the ones it runs. */
  check(thread: ThreadRecord): void {
    for (const frame of thread.frames) {
      const loaded = this.workflows.find(frame.workflowId);
      if (loaded === undefined) continue;
      if (loaded.version !== frame.workflowVersion) {
        throw new InterlockError(
          'WORKFLOW_VERSION_MISMATCH',
          `thread ${thread.threadId} was checkpointed with workflow "${loaded.id}" version ${frame.workflowVersion}, but version ${loaded.version} is loaded: load the matching version to go on with it`,
        );
      }
      const hash = definitionHash(loaded);
      if (frame.definitionHash !== undefined && frame.definitionHash !== hash) {
        throw changed(loaded, frame.definitionHash, hash, thread.threadId);
      }
    }
  }
}

/**
 * Keeps one definition in the store under its id and version (`write` stores it unless one
 * is kept under them), or refuses it (WORKFLOW_CHANGED) when another content is kept there.
 */
export async function keepDefinition(
  store: ICheckpointStore,
  workflow: WorkflowDefinition,
  write: (workflow: WorkflowDefinition) => Promise<unknown>,
): Promise<void> {
  const hash = definitionHash(workflow);
  await write(workflow);
  const stored = await store.getWorkflowDefinition(workflow.id, workflow.version);
  if (stored !== undefined && definitionHash(stored) !== hash) throw changed(workflow, definitionHash(stored), hash);
}

function changed(
  workflow: WorkflowDefinition,
  storedHash: string,
  loadedHash: string,
  threadId?: string,
): InterlockError {
  const whose = threadId === undefined ? 'threads in the store use' : `thread ${threadId} runs`;
  return new InterlockError(
    'WORKFLOW_CHANGED',
    `workflow "${workflow.id}" version ${workflow.version} was edited: ${whose} the definition with hash ${storedHash.slice(0, 12)}…, ` +
      `but the one loaded has hash ${loadedHash.slice(0, 12)}…. Nothing was stored or run. Give the edited workflow a new version ` +
      `(threads waiting on the old one go on with the old file, or with the copy kept in the store when it is not loaded)`,
    {
      details: {
        workflowId: workflow.id,
        version: workflow.version,
        storedHash,
        loadedHash,
        ...(threadId === undefined ? {} : { threadId }),
      },
    },
  );
}
