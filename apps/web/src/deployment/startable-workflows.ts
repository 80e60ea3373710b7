import { servedWorkflows, type ICheckpointStore, type Interlock } from '@interlock/core';
import type { WorkflowDefinition } from '@interlock/sdk-types';

/**
 * The workflows the page of a deployment can start: those some live worker serves (issue 12).
 * Their definitions come from the store, where workers keep them; each is registered with this
 * process's Interlock (which runs no thread) so `start()` can hand a new thread to a worker.
 */
export class StartableWorkflows {
  private readonly registered = new Map<string, WorkflowDefinition>();

  constructor(
    private readonly interlock: Interlock,
    private readonly store: ICheckpointStore,
    private readonly now: () => number,
  ) {}

  async list(): Promise<WorkflowDefinition[]> {
    const waiting: WorkflowDefinition[] = [];
    for (const served of await servedWorkflows(this.store, this.now())) {
      const known = this.registered.get(served.workflowId);
      if (known?.version === served.version) continue;
      const definition = await this.store.getWorkflowDefinition(served.workflowId, served.version);
      if (definition !== undefined) waiting.push(definition);
    }
    this.registerAll(waiting);
    const served = new Set(
      (await servedWorkflows(this.store, this.now())).map((entry) => `${entry.workflowId}@${entry.version}`),
    );
    return [...this.registered.values()].filter((workflow) => served.has(`${workflow.id}@${workflow.version}`));
  }

  /** Registers definitions whose SUBGRAPHs may refer to one another: each once the ones it refers to are in. */
  private registerAll(definitions: WorkflowDefinition[]): void {
    let left = definitions;
    while (left.length > 0) {
      const failed = left.filter((definition) => {
        try {
          this.registered.set(definition.id, this.interlock.registerWorkflow(definition));
          return false;
        } catch {
          return true;
        }
      });
      // A definition that cannot be registered (a SUBGRAPH no worker serves) stays out.
      if (failed.length === left.length) return;
      left = failed;
    }
  }
}
