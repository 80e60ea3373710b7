import type { AuditLog } from '../audit/audit-log.js';
import type { EmittedEvent, NodeExecutionContext } from '../engine/node-executor.js';
import type { AuditDraft as AuditRow } from '../persistence/unit-of-work.js';
import type { AuditDraft } from './approval-requests.js';
import type { ToolRegistry } from './tool-registry.js';
import { memoryScopeOf, type MemoryScope } from '../policy/session-memory.js';
import { describeCall, type TurnCall } from './turn-state.js';

/** What a call's decisions write and say (pure): its audit entries and its events. */
export class TurnRecorder {
  constructor(
    private readonly tools: ToolRegistry,
    private readonly audit: AuditLog,
  ) {}

  /** The audit entry of a decision about `call` (F33), for the unit of the durability point that carries it. */
  entry(call: TurnCall, context: NodeExecutionContext, entry: AuditDraft): AuditRow {
    const tool = this.tools.find(call.name);
    return this.audit.draft({
      threadId: context.thread.threadId,
      toolCallId: call.id,
      toolName: call.name,
      originalArguments: call.arguments,
      ...entry,
      ...(tool?.pinned ? { toolDefinitionHash: tool.definitionHash } : {}),
    });
  }

  /** The event of a call that just finished (COMPLETED or FAILED); none for any other call. */
  reported(call: TurnCall, nodeId: string): EmittedEvent[] {
    if (call.phase !== 'done') return [];
    const described = describeCall(call, nodeId);
    return call.status === 'SUCCESS'
      ? [{ type: 'TOOL_CALL_COMPLETED', ...described, status: call.status, result: call.output }]
      : [{ type: 'TOOL_CALL_FAILED', ...described, status: call.status, message: call.content }];
  }
}

/** Session memory is keyed channel:chatId; a thread without a chat id is its own session. */
export function scopeOf(context: NodeExecutionContext): MemoryScope {
  return memoryScopeOf(context.thread);
}
