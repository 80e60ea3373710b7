import { inject, injectable } from 'inversify';
import { TYPES } from '../di/tokens.js';
import type { Clock } from '../engine/clock.js';
import type { ToolRegistry } from '../tools/tool-registry.js';
import type { ResolvedApprovalOptions } from './approval-options.js';
import { decideApproval, type ApprovalCall, type ApprovalDecision, type ShellClassifierPort } from './decide-approval.js';
import { SessionMemory, type MemoryScope } from './session-memory.js';

/** Where a call is being decided: the workflow's whitelist and the session it belongs to. */
export interface DecisionScope extends MemoryScope {
  autoApprovedTools?: readonly string[];
}

/** The approval pipeline bound to this instance's tools, options, shell rules and session memory. */
@injectable()
export class ApprovalPolicy {
  readonly memory = new SessionMemory();

  constructor(
    @inject(TYPES.ToolRegistry) private readonly tools: ToolRegistry,
    @inject(TYPES.ApprovalOptions) readonly options: ResolvedApprovalOptions,
    @inject(TYPES.ShellClassifier) private readonly shell: ShellClassifierPort,
    @inject(TYPES.Clock) private readonly clock: Clock,
  ) {}

  decide(call: ApprovalCall, scope: DecisionScope): ApprovalDecision {
    return decideApproval(call, {
      tools: this.tools,
      options: this.options,
      autoApprovedTools: scope.autoApprovedTools ?? [],
      shell: this.shell,
      memory: this.memory,
      scope: { channel: scope.channel, ...(scope.chatId === undefined ? {} : { chatId: scope.chatId }) },
      now: this.clock.now(),
    });
  }

  /** Remembers an approval of these exact arguments for the session window (F30). */
  remember(call: ApprovalCall, scope: MemoryScope): void {
    this.memory.remember(SessionMemory.key(scope, call.toolName, call.arguments), this.clock.now(), this.options.memoryWindow);
  }
}
