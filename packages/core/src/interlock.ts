import 'reflect-metadata';
import { Container } from 'inversify';
import type { Observable } from 'rxjs';
import type {
  InterlockEvent,
  IUserInteractionHandler,
  UserInteractionRequest,
  WorkflowDefinition,
  WorkflowDefinitionInput,
} from '@interlock/sdk-types';
import { coreModule } from './di/core-module.js';
import { TYPES } from './di/tokens.js';
import { systemClock, type Clock } from './engine/clock.js';
import type { ThreadHandle } from './engine/thread-handle.js';
import type { RespondResult, StartOptions, ThreadRunner } from './engine/thread-runner.js';
import { InterlockError } from './errors/interlock-error.js';
import type { EventBus } from './events/event-bus.js';
import type { ModelProvider } from './llm/model-provider.js';
import type { ICheckpointStore, ThreadRecord, ThreadStatus } from './persistence/checkpoint-store.js';
import { InMemoryCheckpointStore } from './persistence/memory/in-memory-checkpoint-store.js';
import type { WorkflowRegistry } from './workflow/workflow-registry.js';

/** Where threads and interactions are kept. The TypeORM stores (SQLite, PostgreSQL) are not built yet. */
export type StoreOptions = { type: 'memory' } | { type: 'custom'; store: ICheckpointStore };

export interface InterlockOptions {
  /** Default `{ type: 'memory' }`. */
  store?: StoreOptions;
  /** Models by name; LLM nodes name one (`model = "default"` when omitted). */
  models?: Record<string, ModelProvider>;
  /** The app's handler per channel. A thread whose channel has none waits durably for `respond()`. */
  handlers?: Record<string, IUserInteractionHandler>;
  /** Time source, for tests. */
  clock?: Clock;
  /** Last chance to rebind services, e.g. `container.rebindSync(TYPES.X)`. Advanced. */
  configureContainer?: (container: Container) => void;
}

/**
 * The public face of Interlock: load workflows, start threads, answer what waits.
 *
 * @example
 * const interlock = await createInterlock({ models: { default: scriptedModel(['Plan…']) } });
 * const workflow = await interlock.loadWorkflow('examples/workflows/plan-approval.toml');
 * const thread = await interlock.start(workflow, { channel: 'api' });
 * const [question] = await interlock.pending();
 * await interlock.respond(question.interactionId, 'yes');
 */
export class Interlock {
  /** Every event of every thread run by this instance. */
  readonly events$: Observable<InterlockEvent>;

  constructor(
    private readonly runner: ThreadRunner,
    private readonly registry: WorkflowRegistry,
    private readonly store: ICheckpointStore,
    private readonly handlers: Map<string, IUserInteractionHandler>,
    bus: EventBus,
  ) {
    this.events$ = bus.events$;
  }

  /** Reads and validates a TOML or JSON workflow file (and the files its SUBGRAPH nodes name). Throws WORKFLOW_INVALID listing every error. */
  loadWorkflow(path: string): Promise<WorkflowDefinition> {
    return this.registry.load(path);
  }

  /** Validates and registers a workflow given as data. Throws WORKFLOW_INVALID listing every error. */
  registerWorkflow(definition: WorkflowDefinitionInput): WorkflowDefinition {
    return this.registry.register(definition);
  }

  /** Starts a thread of a loaded workflow. */
  start(workflow: WorkflowDefinition | string, options?: StartOptions): Promise<ThreadHandle> {
    const definition = typeof workflow === 'string' ? this.registry.get(workflow) : workflow;
    return this.runner.start(definition, options);
  }

  /** Continues a waiting or interrupted thread from the store. */
  resume(threadId: string): Promise<ThreadHandle> {
    return this.runner.resume(threadId);
  }

  /** Answers a pending interaction; see {@link RespondResult}. */
  respond(interactionId: string, input: unknown, options?: { responder?: string }): Promise<RespondResult> {
    return this.runner.respond(interactionId, input, options);
  }

  /** Cancels a thread; its pending interaction fails with reason `cancelled`. */
  cancel(threadId: string, reason?: string): Promise<void> {
    return this.runner.cancel(threadId, reason);
  }

  /** Every interaction waiting for an answer, in any thread, oldest first. */
  pending(): Promise<UserInteractionRequest[]> {
    return this.runner.pending();
  }

  /** Threads in the store, optionally by status. */
  threads(filter?: { status?: ThreadStatus }): Promise<ThreadRecord[]> {
    return this.store.listThreads(filter);
  }

  /** Registers (or replaces) the handler of a channel. */
  setHandler(channel: string, handler: IUserInteractionHandler): void {
    this.handlers.set(channel, handler);
  }

  /** Stops this instance's runs (threads stay resumable in the store) and closes the store. */
  async close(): Promise<void> {
    await this.runner.close();
    await this.store.close();
  }
}

/** Builds an Interlock: the only place (with the apps' composition roots) that creates the container. */
export async function createInterlock(options: InterlockOptions = {}): Promise<Interlock> {
  const container = new Container();
  container.loadSync(coreModule);
  container.bind(TYPES.CheckpointStore).toConstantValue(createStore(options.store ?? { type: 'memory' }));
  container.bind(TYPES.Models).toConstantValue({ ...options.models });
  container.bind(TYPES.Handlers).toConstantValue(new Map(Object.entries(options.handlers ?? {})));
  container.bind(TYPES.Clock).toConstantValue(options.clock ?? systemClock);
  options.configureContainer?.(container);
  return new Interlock(
    container.get<ThreadRunner>(TYPES.ThreadRunner),
    container.get(TYPES.WorkflowRegistry),
    container.get(TYPES.CheckpointStore),
    container.get(TYPES.Handlers),
    container.get(TYPES.EventBus),
  );
}

function createStore(options: StoreOptions): ICheckpointStore {
  switch (options.type) {
    case 'memory':
      return new InMemoryCheckpointStore();
    case 'custom':
      return options.store;
    default:
      throw new InterlockError(
        'INVALID_OPTIONS',
        `store type "${(options as { type: string }).type}" is not available: use "memory" or "custom"`,
      );
  }
}
