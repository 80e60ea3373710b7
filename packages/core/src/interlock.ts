import 'reflect-metadata';
import { resolve } from 'node:path';
import * as nodeTimers from 'node:timers';
import { Container } from 'inversify';
import type { Observable } from 'rxjs';
import type {
  InteractionStatus,
  InterlockEvent,
  IUserInteractionHandler,
  UserInteractionRequest,
  WorkflowDefinition,
  WorkflowDefinitionInput,
} from '@interlock/sdk-types';
import { coreModule } from './di/core-module.js';
import { TYPES } from './di/tokens.js';
import { steadyClock, type Clock } from './engine/clock.js';
import type { ThreadHandle } from './engine/thread-handle.js';
import { ThreadClaims } from './engine/thread-claims.js';
import type { RespondResult, StartOptions, ThreadRunner } from './engine/thread-runner.js';
import { InterlockError } from './errors/interlock-error.js';
import type { EventBus } from './events/event-bus.js';
import type {
  ICheckpointStore,
  InteractionRecord,
  ThreadRecord,
  ThreadStatus,
} from './persistence/checkpoint-store.js';
import { WorkflowRegistry } from './workflow/workflow-registry.js';
import { openStore } from './interlock-store.js';
import type { GlobalChange, GlobalsKeeper } from './persistence/unit-of-work.js';
import { AuditLog, type AuditEntry, type AuditExport, type AuditVerification } from './audit/audit-log.js';
import { loadProjectConfig } from './config/project-config.js';
import { optionsFromProjectConfig } from './config/project-options.js';
import { resolveApprovalOptions } from './policy/approval-options.js';
import type { ApprovalPolicy } from './policy/approval-policy.js';
import type { ResponseInterpreter } from './interaction/response-interpreter.js';
import type { MessageBus } from './policy/message-bus.js';
import type { ApprovalDecision } from './policy/decide-approval.js';
import { Receipts } from './receipts/receipts.js';
import { resolveReceiptOptions } from './receipts/receipt-options.js';
import { RunTelemetry } from './telemetry/run-telemetry.js';
import { ToolRegistry } from './tools/tool-registry.js';
import { CONTINUE_IN, JobPlanner } from './workers/job-planner.js';
import { connectDeclaredMcpServers } from './mcp/mcp-client.js';
import { unavailableServerTools } from './mcp/unavailable-server-tools.js';
import { serversToStart } from './mcp/servers-to-start.js';
import { builtinShellRules, checkRules, leaseMsOf, toolNamed, type InterlockOptions } from './interlock-options.js';

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
  /** Seed 002's request/response bus: `messageBus.registerHandler('toolApproval', …)`. */
  readonly messageBus: MessageBus;

  constructor(
    private readonly runner: ThreadRunner,
    private readonly registry: WorkflowRegistry,
    private readonly store: ICheckpointStore,
    private readonly handlers: Map<string, IUserInteractionHandler>,
    private readonly policy: ApprovalPolicy,
    private readonly auditLog: AuditLog,
    private readonly interpreter: ResponseInterpreter,
    bus: EventBus,
    messageBus: MessageBus,
    private readonly telemetry: RunTelemetry,
    /** Approval receipts (F63): the deployment's keys and JWKS, the receipts kept with the audit. */
    readonly receipts: Receipts,
    private readonly resources: readonly { close(): Promise<void> }[] = [],
  ) {
    this.events$ = bus.events$;
    this.messageBus = messageBus;
  }

  /** Stops the audit's periodic anchoring (set by createInterlock). */
  private stopAnchoring: (() => void) | undefined;

  /** Anchors the audit every `everyMs` until closed (0: never). */
  anchorEvery(everyMs: number): void {
    if (everyMs <= 0 || this.stopAnchoring !== undefined) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = () => {
      // Node's own timer: a test's fake clock neither runs nor counts it.
      timer = nodeTimers.setTimeout(() => {
        void this.runner
          .anchorAudit(this.auditLog)
          .catch(() => undefined)
          .finally(tick);
      }, everyMs);
      timer.unref();
    };
    this.stopAnchoring = () => nodeTimers.clearTimeout(timer);
    tick();
  }

  /**
   * Dry-runs the approval pipeline for a hypothetical call (F42): the decision and the path
   * of rules that led to it. Nothing runs and nothing is remembered.
   */
  explain(
    call: { toolName: string; arguments: Record<string, unknown> },
    scope: { channel?: string; chatId?: string; autoApprovedTools?: string[] } = {},
  ): ApprovalDecision {
    return this.policy.decide(call, { ...scope, channel: scope.channel ?? 'default' });
  }

  /** The audit trail of tool-call decisions (F33), optionally of one thread. */
  audit(filter?: { threadId?: string }): Promise<AuditEntry[]> {
    return this.auditLog.list(filter);
  }

  /**
   * Checks an answer without recording it: what `respond()` would refuse, and why. Apps use
   * it to re-ask until an edit is valid.
   */
  async checkResponse(interactionId: string, input: unknown): Promise<{ ok: true } | { ok: false; message: string }> {
    const interaction = await this.store.getInteraction(interactionId);
    if (!interaction) return { ok: false, message: `no interaction ${interactionId}` };
    try {
      this.interpreter.interpret(interaction, input);
      return { ok: true };
    } catch (error) {
      return { ok: false, message: error instanceof Error ? error.message : String(error) };
    }
  }

  /**
   * Writes an answer that did not count to the audit trail (issue 14): one refused (not an
   * approver, separation of duties, invalid, too late) or one that lost to another answer.
   * The entry has `decidedBy: 'attempt'` and rule `attempt:refused` or `attempt:lost`; it
   * never changes what happens to the call. Unknown interactions are not recorded.
   */
  recordAttempt(attempt: {
    interactionId: string;
    responder: string;
    result: 'refused' | 'lost';
    reason: string;
  }): Promise<AuditEntry | undefined> {
    return this.runner.desk.recordAttempt(attempt);
  }

  /**
   * Keeps global variables of the engine's own scopes (`interlock:…`) in one commit, through
   * the answer desk (the one writer outside a thread's run): an app's state that is not a
   * thread's, such as the web app's sessions. False when the store refused it (a
   * `compare-and-set` found another value: read again).
   *
   * @throws InterlockError INVALID_OPTIONS for a scope that is not `interlock:…` (a workflow's).
   */
  keepGlobals(changes: readonly GlobalChange[]): Promise<boolean> {
    return this.runner.desk.keepGlobals(changes);
  }

  /**
   * Seals the audit entries stored since the last anchor (see docs/persistence.md, "The
   * audit chains"); an Interlock does it by itself every `auditAnchorMs`. Returns whether it
   * anchored (nothing new, or another process anchored first: false).
   */
  anchorAudit(): Promise<boolean> {
    return this.runner.anchorAudit(this.auditLog);
  }

  /**
   * The audit trail (of one thread, or all) with its heads and anchors, for a copy that
   * `verifyAuditChain(entries, evidence)` checks later: one with entries removed from its
   * end no longer verifies (F45).
   */
  async exportAudit(filter?: { threadId?: string }): Promise<AuditExport> {
    const exported = await this.auditLog.export(filter);
    // The receipts of the calls that ran (F63), checked offline with the keys they were signed by.
    const receipts = await this.receipts.ofThreads(exported.entries.map((entry) => entry.threadId));
    return { ...exported, receipts, keys: await this.receipts.keys.archive() };
  }

  /** Checks the audit trail's hash chain (F45). */
  verifyAudit(): Promise<AuditVerification> {
    return this.auditLog.verify();
  }

  /** Reads and validates a TOML or JSON workflow file (and the files its SUBGRAPH nodes name). Throws WORKFLOW_INVALID listing every error. */
  loadWorkflow(path: string): Promise<WorkflowDefinition> {
    return this.registry.load(path);
  }

  /** Validates and registers a workflow given as data. Throws WORKFLOW_INVALID listing every error. */
  registerWorkflow(definition: WorkflowDefinitionInput): WorkflowDefinition {
    return this.registry.register(definition);
  }

  /**
   * Starts a thread of a loaded workflow. Traced as `interlock.start` (F59): the thread's spans,
   * in every process, join its trace (`options.traceparent`, else the caller's active span).
   */
  start(workflow: WorkflowDefinition | string, options: StartOptions = {}): Promise<ThreadHandle> {
    const definition = typeof workflow === 'string' ? this.registry.get(workflow) : workflow;
    return this.telemetry.traceStart(definition.id, options.traceparent, (traceparent) =>
      this.runner.start(definition, { ...options, ...(traceparent === undefined ? {} : { traceparent }) }),
    );
  }

  /** Continues a waiting or interrupted thread from the store. */
  resume(threadId: string): Promise<ThreadHandle> {
    return this.runner.resume(threadId);
  }

  /** Answers a pending interaction; see {@link RespondResult}. */
  respond(interactionId: string, input: unknown, options?: { responder?: string }): Promise<RespondResult> {
    return this.telemetry.traceRespond(interactionId, () => this.runner.respond(interactionId, input, options));
  }

  /**
   * Offers an approval that waited past its escalation time to its escalation approvers (F51):
   * recorded on the interaction, audited (`decidedBy: "escalation"`), and published as
   * USER_INTERACTION_ESCALATED. Threads this process runs do it on time by themselves, and a
   * worker's job does it in a deployment; returns whether this call did (false when it is not
   * due yet, was escalated already, or no longer waits).
   */
  escalate(interactionId: string): Promise<boolean> {
    return this.runner.escalate(interactionId);
  }

  /** Cancels a thread; its pending interaction fails with reason `cancelled`. */
  cancel(threadId: string, reason?: string): Promise<void> {
    return this.runner.cancel(threadId, reason);
  }

  /**
   * Times out every interaction whose deadline passed while no process ran (run by
   * `createInterlock` unless `recoverOnStart: false`). Returns how many.
   */
  expireOverdue(): Promise<number> {
    return this.runner.expireOverdue();
  }

  /** Every interaction waiting for an answer, in any thread, oldest first. */
  pending(): Promise<UserInteractionRequest[]> {
    return this.runner.pending();
  }

  /** Threads in the store, optionally by status. */
  threads(filter?: { status?: ThreadStatus }): Promise<ThreadRecord[]> {
    return this.store.listThreads(filter);
  }

  /** One thread as stored (its status, pending interaction ids, variables, conversation), or undefined. */
  thread(threadId: string): Promise<ThreadRecord | undefined> {
    return this.store.getThread(threadId);
  }

  /**
   * Interactions as stored, with their status, response and responder, or failure reason:
   * a thread's history, or everything with a status. `pending()` lists only what a thread
   * still waits on.
   */
  interactions(filter?: { threadId?: string; status?: InteractionStatus }): Promise<InteractionRecord[]> {
    return this.store.listInteractions(filter);
  }

  /** Registers (or replaces) the handler of a channel. */
  setHandler(channel: string, handler: IUserInteractionHandler): void {
    this.handlers.set(channel, handler);
  }

  /** Stops this instance's runs (threads stay resumable in the store) and closes the store. */
  async close(): Promise<void> {
    this.stopAnchoring?.();
    await this.runner.close();
    this.telemetry.close();
    await Promise.all(this.resources.map((resource) => resource.close()));
    await this.store.close();
  }
}

/** Builds an Interlock: the only place that creates the container (`createWorker` calls it). */
export async function createInterlock(given: InterlockOptions = {}): Promise<Interlock> {
  const loaded = typeof given.config === 'string' ? await loadProjectConfig(given.config) : given.config;
  const options = loaded === undefined ? given : { ...given, ...optionsFromProjectConfig(loaded, given) };
  // A process that runs no thread holds none of the tools: their names are checked by the workers.
  const runsTools = options.continueIn !== 'workers-only';
  // Only the servers asked for are started (reading a configuration runs none of its commands).
  const servers = serversToStart(loaded, options.mcpServers ?? [], runsTools ? options.connectMcp : false);
  // A server that is down takes only its own tools away: they are refused, naming it (issue 24).
  const mcp = await connectDeclaredMcpServers(servers.started);
  const tools = new ToolRegistry(
    [...(options.tools ?? []), ...(mcp?.tools ?? [])],
    unavailableServerTools(mcp?.problems ?? [], options.toolFallback),
  );
  const approval = resolveApprovalOptions(
    options.approval,
    runsTools ? (name) => toolNamed(tools, name, servers.notStarted) : undefined,
  );
  checkRules(approval.denyRules, 'denyRules');
  checkRules(approval.allowRules, 'allowRules');
  const leaseMs = leaseMsOf(options.leaseMs);
  // A clock of this instance's own: time measured from its start never steps back.
  const clock = options.clock ?? steadyClock();
  const container = new Container();
  container.load(coreModule);
  const continueIn = options.continueIn ?? 'this-process';
  if (!CONTINUE_IN.includes(continueIn)) {
    throw new InterlockError(
      'INVALID_OPTIONS',
      `continueIn must be one of ${CONTINUE_IN.map((value) => `"${value}"`).join(', ')}, not ${JSON.stringify(continueIn)}`,
    );
  }
  const store = await openStore(options.store ?? { type: 'memory' });
  container.bind(TYPES.CheckpointStore).toConstantValue(store);
  container.bind(TYPES.ToolRegistry).toConstantValue(tools);
  // A process that runs no thread holds none of the tools its workflows name: only workers check them.
  const toolExists =
    continueIn === 'workers-only' ? undefined : (name: string) => toolNamed(tools, name, servers.notStarted) === true;
  container.bind(TYPES.WorkflowRegistry).toConstantValue(new WorkflowRegistry(toolExists));
  container.bind(TYPES.ApprovalOptions).toConstantValue(approval);
  const workspaceRoot = resolve(options.workspaceRoot ?? process.cwd());
  container
    .bind(TYPES.ShellClassifier)
    .toConstantValue(options.shellClassifier ?? (await builtinShellRules(options.shell, workspaceRoot)));
  // Built on first use, after configureContainer: a rebound store or Clock is the one they use.
  container
    .bind(TYPES.AuditLog)
    .toDynamicValue((context) => {
      const auditClock = context.get<Clock>(TYPES.Clock);
      return new AuditLog(context.get(TYPES.CheckpointStore), () => auditClock.now());
    })
    .inSingletonScope();
  container.bind(TYPES.WorkspaceRoot).toConstantValue(workspaceRoot);
  container.bind(TYPES.Models).toConstantValue({ ...options.models });
  container.bind(TYPES.Handlers).toConstantValue(new Map(Object.entries(options.handlers ?? {})));
  container.bind(TYPES.Clock).toConstantValue(clock);
  container
    .bind(TYPES.JobPlanner)
    .toDynamicValue((context) => new JobPlanner(continueIn, context.get(TYPES.Clock), leaseMs))
    .inSingletonScope();
  container
    .bind(TYPES.ThreadClaims)
    .toDynamicValue(
      (context) => new ThreadClaims(context.get(TYPES.CheckpointStore), context.get(TYPES.Clock), leaseMs),
    )
    .inSingletonScope();
  const receipts = resolveReceiptOptions(options.receipts);
  container
    .bind(TYPES.Receipts)
    .toDynamicValue((context) => {
      // The answer desk writes the keys. It is the runner's, and the runner needs receipts (its
      // tool calls issue them): it is looked up when a key is written, not when this is made.
      const desk: GlobalsKeeper = {
        keepGlobals: (changes) => container.get<ThreadRunner>(TYPES.ThreadRunner).desk.keepGlobals(changes),
      };
      return new Receipts(context.get(TYPES.CheckpointStore), desk, context.get(TYPES.Clock), receipts);
    })
    .inSingletonScope();
  container
    .bind(TYPES.RunTelemetry)
    .toDynamicValue((context) => new RunTelemetry(context.get(TYPES.CheckpointStore), context.get(TYPES.ToolRegistry)))
    .inSingletonScope();
  options.configureContainer?.(container);
  const interlock = new Interlock(
    container.get<ThreadRunner>(TYPES.ThreadRunner),
    container.get(TYPES.WorkflowRegistry),
    container.get(TYPES.CheckpointStore),
    container.get(TYPES.Handlers),
    container.get<ApprovalPolicy>(TYPES.ApprovalPolicy),
    container.get(TYPES.AuditLog),
    container.get<ResponseInterpreter>(TYPES.ResponseInterpreter),
    container.get(TYPES.EventBus),
    container.get(TYPES.MessageBus),
    container.get(TYPES.RunTelemetry),
    container.get(TYPES.Receipts),
    mcp === undefined ? [] : [mcp],
  );
  containers.set(interlock, container);
  if (options.recoverOnStart !== false) {
    await interlock.expireOverdue();
    // The deadlines still ahead time out here, whichever process asked (issue 35).
    await container.get<ThreadRunner>(TYPES.ThreadRunner).armWaiting();
  }
  interlock.anchorEvery(options.auditAnchorMs ?? DEFAULT_AUDIT_ANCHOR_MS);
  return interlock;
}

/** How often an Interlock anchors the audit by default (ms). */
export const DEFAULT_AUDIT_ANCHOR_MS = 60_000;

const containers = new WeakMap<Interlock, Container>();

/** The container an Interlock was built with (for `createWorker`, which uses the same services). @internal */
export function containerOf(interlock: Interlock): Container {
  const container = containers.get(interlock);
  if (container === undefined) throw new InterlockError('INTERNAL', 'this Interlock was not made by createInterlock');
  return container;
}
