import { timerUntil, type Clock } from '../engine/clock.js';
import { toInterlockError } from '../errors/interlock-error.js';
import type { ToolApproveResult, ToolUse } from '../policy/approval-options.js';
import type { ApprovalPolicy } from '../policy/approval-policy.js';
import type { MessageBus } from '../policy/message-bus.js';
import type { Tool } from './define-tool.js';
import { parseStrictly } from './strict-arguments.js';

/** Something that answers for a person: `onToolApprove`, or a `toolApproval` handler on the message bus. */
export interface AutomaticApprover {
  /** `callback:onToolApprove` or `bus:toolApproval`: the audit's `decidedBy`. */
  name: string;
  ask(toolUse: ToolUse): ToolApproveResult | Promise<ToolApproveResult>;
}

/** The verdict of an automatic approver: approved with the arguments that run, or denied with why. */
export type AutomaticVerdict =
  { approved: true; finalArguments: Record<string, unknown> } | { approved: false; reason: string };

/** `onToolApprove`, else a `toolApproval` handler on the message bus, else nobody (a person is asked). */
export function automaticApprover(policy: ApprovalPolicy, bus: MessageBus): AutomaticApprover | undefined {
  const callback = policy.options.onToolApprove;
  if (callback) return { name: 'callback:onToolApprove', ask: callback };
  if (bus.has('toolApproval')) {
    return {
      name: 'bus:toolApproval',
      ask: (toolUse) =>
        bus.request('toolApproval', {
          toolUse,
          category: toolUse.category,
          sessionId: toolUse.sessionId,
          ...(toolUse.chatId === undefined ? {} : { chatId: toolUse.chatId }),
          ...(toolUse.parentThreadId === undefined ? {} : { parentThreadId: toolUse.parentThreadId }),
        }),
    };
  }
  return undefined;
}

/** What an automatic approver is told about a call: the tool, the arguments, the rule that asked, where it runs (its chat and parent thread too, F27). */
export function toolUseOf(
  args: Record<string, unknown>,
  tool: Tool,
  rule: string,
  thread: {
    threadId: string;
    channel: string;
    session: { sessionId: string; chatId?: string | undefined; parentThreadId?: string | undefined };
  },
): ToolUse {
  const { chatId, parentThreadId } = thread.session;
  return {
    toolName: tool.name,
    arguments: args,
    category: tool.category,
    riskLevel: tool.riskLevel,
    rule,
    threadId: thread.threadId,
    sessionId: thread.session.sessionId,
    channel: thread.channel,
    ...(chatId === undefined ? {} : { chatId }),
    ...(parentThreadId === undefined ? {} : { parentThreadId }),
  };
}

/**
 * Asks an automatic approver about a call the rules left to `ask` (F26). Its failures, a
 * late answer (past `timeoutMs` on `clock`; 0 waits forever) and answers that are neither
 * a boolean nor a decision deny (F28); edited params must fit the tool's schema and pass
 * the rules again (`denies`), or the call is denied.
 */
export async function askAutomatically(
  approver: AutomaticApprover,
  toolUse: ToolUse,
  tool: Tool,
  options: { timeoutMs: number; clock: Clock; denies: (edited: Record<string, unknown>) => boolean },
): Promise<AutomaticVerdict> {
  try {
    const answer = await withTimeout(options.timeoutMs, options.clock, approver.name, approver.ask(toolUse));
    return verdictOf(approver.name, answer, toolUse.arguments, tool, options.denies);
  } catch (error) {
    return { approved: false, reason: `${approver.name} failed: ${toInterlockError(error).message}` };
  }
}

/** Reads an approver's answer (pure). */
export function verdictOf(
  name: string,
  answer: unknown,
  proposed: Record<string, unknown>,
  tool: Tool,
  denies: (edited: Record<string, unknown>) => boolean,
): AutomaticVerdict {
  if (typeof answer === 'boolean')
    return answer ? { approved: true, finalArguments: proposed } : { approved: false, reason: `${name} said no` };
  if (!answer || typeof answer !== 'object')
    return { approved: false, reason: `${name} returned neither a boolean nor a decision` };
  const decision = answer as Exclude<ToolApproveResult, boolean>;
  // A JavaScript approver may answer `approved: 'yes'` or leave it out: only `true` approves.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-boolean-literal-compare -- untyped callers
  if (decision.approved !== true) return { approved: false, reason: decision.denyReason || `${name} said no` };
  if (!decision.params) return { approved: true, finalArguments: proposed };
  const edited = parseStrictly(tool.parameters, decision.params);
  if (!edited.ok)
    return { approved: false, reason: `${name} returned params that are invalid or denied (${edited.problem})` };
  if (denies(edited.value)) return { approved: false, reason: `${name} returned params that are invalid or denied` };
  return { approved: true, finalArguments: edited.value };
}

/** Resolves like `answer`, or rejects once `clock` passes `timeoutMs` from now (0 waits forever); the timer never outlives it. */
export function withTimeout<T>(timeoutMs: number, clock: Clock, name: string, answer: T | Promise<T>): Promise<T> {
  if (timeoutMs <= 0) return Promise.resolve(answer);
  return new Promise<T>((resolve, reject) => {
    const timer = timerUntil(clock.now() + timeoutMs, clock).subscribe(() =>
      reject(new Error(`${name} did not answer within ${timeoutMs} ms`)),
    );
    Promise.resolve(answer)
      .then(resolve, reject)
      .finally(() => timer.unsubscribe());
  });
}
