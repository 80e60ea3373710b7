import type { AuditLog } from '../audit/audit-log.js';
import type { Clock } from '../engine/clock.js';
import type { NodeExecutionContext } from '../engine/node-executor.js';
import { fenceOf } from '../engine/thread-claims.js';
import type { AuditDraft } from './approval-requests.js';
import type { ToolPins } from './tool-pins.js';
import type { ToolRegistry } from './tool-registry.js';
import { describeCall, type TurnCall } from './turn-state.js';

/** Where a call's decisions go: the audit, the session memory's scope, the events, the pins. */
export class TurnRecorder {
  constructor(
    private readonly tools: ToolRegistry,
    private readonly audit: AuditLog,
    private readonly pins: ToolPins,
    private readonly clock: Clock,
  ) {}

  /** Appends a decision about `call` to the audit, fenced by the thread's claim. */
  async record(call: TurnCall, context: NodeExecutionContext, entry: AuditDraft): Promise<void> {
    const tool = this.tools.find(call.name);
    await this.audit.append(
      {
        threadId: context.thread.threadId,
        toolCallId: call.id,
        toolName: call.name,
        originalArguments: call.arguments,
        ...entry,
        ...(tool?.pinned ? { toolDefinitionHash: tool.definitionHash } : {}),
      },
      fenceOf(context.thread),
    );
  }

  /**
   * Appends the decision an interaction's answer (or its failed wait) made, once: an answer
   * applied again after a crash (its audit entry written, its checkpoint not) is not
   * audited a second time.
   */
  async recordAnswer(
    call: TurnCall,
    context: NodeExecutionContext,
    entry: AuditDraft,
    interactionId: string,
  ): Promise<void> {
    const audited = await this.audit.list({ threadId: context.thread.threadId });
    if (audited.some((existing) => existing.interactionId === interactionId)) return;
    await this.record(call, context, { ...entry, interactionId });
  }

  /** Announces a call that just finished (COMPLETED or FAILED); any other call passes through. */
  report(call: TurnCall, context: NodeExecutionContext, nodeId: string): TurnCall {
    if (call.phase !== 'done') return call;
    const described = describeCall(call, nodeId);
    if (call.status === 'SUCCESS')
      context.emit({ type: 'TOOL_CALL_COMPLETED', ...described, status: call.status, result: call.output });
    else context.emit({ type: 'TOOL_CALL_FAILED', ...described, status: call.status, message: call.content });
    return call;
  }

  /** The first approval of a pinned tool pins its definition; an approval of a changed one moves the pin. */
  async pinApproved(toolName: string): Promise<void> {
    const tool = this.tools.find(toolName);
    if (tool) await this.pins.pinApproved(tool, new Date(this.clock.now()).toISOString());
  }
}

/** Session memory is keyed channel:chatId; a thread without a chat id is its own session. */
export function scopeOf(context: NodeExecutionContext) {
  return {
    channel: context.thread.channel,
    chatId: context.thread.session.chatId ?? context.thread.session.sessionId,
  };
}
