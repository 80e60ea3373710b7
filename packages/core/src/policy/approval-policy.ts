import { inject, injectable } from 'inversify';
import { TYPES } from '../di/tokens.js';
import type { Clock } from '../engine/clock.js';
import type { ICheckpointStore, RememberedApprovals } from '../persistence/checkpoint-store.js';
import type { RememberEntry } from '../persistence/unit-of-work.js';
import type { Tool } from '../tools/define-tool.js';
import type { ToolRegistry } from '../tools/tool-registry.js';
import type { ResolvedApprovalOptions } from './approval-options.js';
import {
  decideApproval,
  type ApprovalCall,
  type ApprovalDecision,
  type ShellClassifierPort,
} from './decide-approval.js';
import { SessionMemory, type MemoryScope } from './session-memory.js';
import { workspaceWrite } from './reached-path.js';

/** Where a call is being decided: the workflow's whitelist and the session it belongs to. */
export interface DecisionScope extends MemoryScope {
  autoApprovedTools?: readonly string[];
}

/** The approval pipeline bound to this instance's tools, options, shell rules and session memory. */
@injectable()
export class ApprovalPolicy {
  constructor(
    @inject(TYPES.ToolRegistry) private readonly tools: ToolRegistry,
    @inject(TYPES.ApprovalOptions) readonly options: ResolvedApprovalOptions,
    @inject(TYPES.ShellClassifier) private readonly shell: ShellClassifierPort,
    @inject(TYPES.CheckpointStore) private readonly store: ICheckpointStore,
    @inject(TYPES.Clock) private readonly clock: Clock,
    @inject(TYPES.WorkspaceRoot) private readonly workspaceRoot?: string,
  ) {}

  /**
   * Runs the pipeline. `remembered` says whether the session memory holds this exact call
   * (see `isRemembered`); explain() and the check of edited arguments leave it false.
   */
  decide(call: ApprovalCall, scope: DecisionScope, remembered = false): ApprovalDecision {
    const memoryScope = { channel: scope.channel, ...(scope.chatId === undefined ? {} : { chatId: scope.chatId }) };
    const memory = { has: () => remembered, known: remembered };
    return decideApproval(call, {
      tools: this.tools,
      options: this.options,
      autoApprovedTools: scope.autoApprovedTools ?? [],
      shell: this.shell,
      memory,
      scope: memoryScope,
      now: this.clock.now(),
      ...(this.workspaceRoot === undefined
        ? {}
        : { workspace: { write: (path: string) => workspaceWrite(this.workspaceRoot as string, path) } }),
    });
  }

  /**
   * Runs the pipeline about a tool this process does not hold (`standInTool`: an answerer
   * checking an edit with what the request says of the tool), with this instance's options
   * and shell rules. Nothing is remembered.
   */
  decideAbout(tool: Tool, call: ApprovalCall, scope: DecisionScope): ApprovalDecision {
    return decideApproval(call, {
      tools: { find: (name) => (name === tool.name ? tool : undefined) },
      options: this.options,
      autoApprovedTools: scope.autoApprovedTools ?? [],
      shell: this.shell,
      memory: { has: () => false, known: false },
      scope: { channel: scope.channel, ...(scope.chatId === undefined ? {} : { chatId: scope.chatId }) },
      now: this.clock.now(),
    });
  }

  /**
   * Whether "remember for this session" holds this exact call now (kept in the store, F30).
   * `known`: the scope's remembered approvals as a worker's job brought them (issue 38),
   * decided from without a read when they are this scope's.
   */
  isRemembered(call: ApprovalCall, scope: MemoryScope, known?: RememberedApprovals): Promise<boolean> {
    const tool = this.tools.find(call.toolName);
    if (!tool) return Promise.resolve(false);
    const key = SessionMemory.key(scope, tool, call.arguments);
    const now = this.clock.now();
    if (known?.scope === SessionMemory.scopeKey(scope))
      return Promise.resolve(Object.hasOwn(known.entries, key) && (known.entries[key] ?? 0) > now);
    return this.store.isApprovalRemembered(key, now);
  }

  /** What remembering an approval of these exact arguments for the session window writes (F30). */
  memoryEntry(call: ApprovalCall, scope: MemoryScope): RememberEntry | undefined {
    const tool = this.tools.find(call.toolName);
    if (!tool) return undefined;
    return {
      key: SessionMemory.key(scope, tool, call.arguments),
      expiresAt: this.clock.now() + this.options.memoryWindow,
      scope: SessionMemory.scopeKey(scope),
    };
  }
}
