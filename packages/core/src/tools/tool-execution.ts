import { isoTime, type Clock } from '../engine/clock.js';
import { failpoint, isArmed } from '../engine/failpoints.js';
import type { NodeExecutionContext } from '../engine/node-executor.js';
import { startCommitted, type StartsCommitted } from '../engine/run.js';
import { InterlockError, toInterlockError } from '../errors/interlock-error.js';
import type { ToolExecutionRecord } from '../persistence/checkpoint-store.js';
import type { ToolCallChange } from '../persistence/unit-of-work.js';
import { hashArguments } from '../policy/canonical-arguments.js';
import { receiptInScope, runWithReceipts } from '../receipts/receipt-scope.js';
import type { Resolution } from './approval-requests.js';
import type { Decided } from './call-decider.js';
import type { Tool } from './define-tool.js';
import { toolMessage } from './tool-messages.js';
import {
  approve,
  argumentsOf,
  awaitRecovery,
  awaitResult,
  describeCall,
  finish,
  type ReadyCall,
  type TurnCall,
} from './turn-state.js';

/** What a ready call comes to before it runs: it starts (with this write-ahead change), or it became something else. */
export type StartPlan = { kind: 'start'; change: ToolCallChange } | ({ kind: 'settled' } & Decided);

/**
 * Runs approved calls behind their write-ahead record (F40): a call starts in the commit of
 * a durability point — bound to the hash of its exact arguments, and only from a status
 * that allows it — before its side effect. A call found `finished` is never run again; one
 * found `started` (the process that ran it died or lost its claim) runs again only if its
 * tool is idempotent, otherwise a person says what happened.
 */
export class ToolExecution {
  constructor(
    private readonly clock: Clock,
    private readonly workspaceRoot: string,
  ) {}

  /** How a ready call goes on, from its record as the run read it. */
  plan(call: ReadyCall, tool: Tool | undefined, context: NodeExecutionContext, nodeId: string): StartPlan {
    if (!tool)
      return { kind: 'settled', call: finish(call, 'NOT_FOUND', `No tool named "${call.name}".`), effects: {} };
    const argumentsHash = hashArguments(argumentsOf(call));
    const stored = context.run.toolCall(call.id);
    const startable =
      stored === undefined ||
      (stored.argumentsHash === argumentsHash &&
        (stored.status === 'approved' || (stored.status === 'started' && tool.idempotent === true)));
    if (startable) {
      const { threadId } = context.thread;
      return {
        kind: 'start',
        change: {
          kind: 'start',
          call: {
            threadId,
            toolCallId: call.id,
            toolName: tool.name,
            argumentsHash,
            arguments: argumentsOf(call),
            approvedBy: call.approvedBy ?? call.rule ?? 'unknown',
            idempotent: tool.idempotent === true,
            createdAt: this.now(),
          },
          from: tool.idempotent ? ['approved', 'started'] : ['approved'],
          at: this.now(),
        },
      };
    }
    if (stored.argumentsHash !== argumentsHash) {
      const done = finish(call, 'ERROR', 'No stored approval matches these exact arguments, so the call was not run.');
      return { kind: 'settled', call: done, effects: {} };
    }
    switch (stored.status) {
      case 'finished':
        return { kind: 'settled', call: replayOutcome(call, tool, stored), effects: {} };
      case 'started':
        // Started and unfinished: the process that ran it died, or froze past its claim. Unknown.
        return {
          kind: 'settled',
          call: awaitRecovery(call, this.claimEnded(context)),
          effects: {
            toolCalls: [
              {
                kind: 'status',
                threadId: stored.threadId,
                toolCallId: call.id,
                from: ['started'],
                to: 'unknown',
                at: this.now(),
              },
            ],
            events: [{ type: 'TOOL_CALL_OUTCOME_UNKNOWN', ...describeCall(call, nodeId) }],
          },
        };
      default:
        return { kind: 'settled', call: awaitRecovery(call, this.claimEnded(context)), effects: {} };
    }
  }

  /**
   * Runs a call whose start is committed; returns it finished (or waiting for its result's
   * approval) with its outcome's write. A tool that returns after its signal was aborted
   * (the run was stopped: its claim lost, the process closing, the thread cancelled) has
   * not finished: a tool that finds its signal aborted throws, so a return then may be one
   * that skipped its effect and says otherwise. This throws instead of taking the return
   * for an outcome; the call stays `started`, and whoever takes the thread next asks a
   * person what became of it (F40, F53). `started`: the proof, from `Run.startCalls`, that the
   * call's start was committed; a call it does not name is refused before its tool runs.
   * `receipt` is the call's approval receipt (F63).
   */
  async execute(
    call: ReadyCall,
    tool: Tool,
    context: NodeExecutionContext,
    nodeId: string,
    started: StartsCommitted,
    receipt?: string,
  ): Promise<Decided> {
    const { threadId } = context.thread;
    if (!startCommitted(started, call.id))
      throw new InterlockError(
        'INTERNAL',
        `tool call ${call.id} was about to run without its committed start (F40): it did not run`,
        { details: { threadId, toolCallId: call.id } },
      );
    let result: unknown;
    try {
      const args = tool.parameters.parse(argumentsOf(call));
      // The receipt travels with the call (F63): in its context, and for code it calls, `currentReceipt()`.
      const scoped = receipt === undefined ? [] : [receiptInScope(receipt, tool.name, argumentsOf(call))];
      result = await runWithReceipts(scoped, () =>
        tool.execute(args, {
          threadId,
          nodeId,
          toolCallId: call.id,
          signal: context.signal,
          fence: context.fence,
          workspaceRoot: this.workspaceRoot,
          ...(receipt === undefined ? {} : { receipt }),
          ...(call.userInstruction === undefined && call.responder === undefined
            ? {}
            : {
                approval: {
                  ...(call.userInstruction === undefined ? {} : { userInstruction: call.userInstruction }),
                  ...(call.responder === undefined ? {} : { responder: call.responder }),
                },
              }),
        }),
      );
    } catch (error) {
      const failure = toInterlockError(error);
      // A tool that did not answer in time (an MCP server that hangs) ends as TIMEOUT, anything else as ERROR.
      const status = failure.code === 'TOOL_TIMEOUT' ? 'TIMEOUT' : 'ERROR';
      const detail = status === 'TIMEOUT' ? failure : failure.message;
      return {
        call: finish(call, status, detail),
        effects: this.finished(threadId, call.id, { status, content: toolMessage(status, detail) }),
      };
    }
    if (context.signal.aborted)
      throw new InterlockError(
        'TOOL_CALL_FAILED',
        `tool "${tool.name}" returned after its signal was aborted: call ${call.id} is not taken as run, and is asked about when the thread goes on`,
        { details: { threadId, toolCallId: call.id } },
      );
    if (isArmed('tool:effect-done')) {
      await context.run.commit();
      failpoint('tool:effect-done');
    }
    const outcome = { status: 'SUCCESS' as const, output: result, content: toolMessage('SUCCESS', result) };
    return {
      call: tool.requireResultApproval ? awaitResult(call, result) : finish(call, 'SUCCESS', result),
      effects: this.finished(threadId, call.id, outcome),
    };
  }

  /** Carries out what a person said about a call whose outcome was unknown. */
  resolve(
    call: TurnCall,
    resolution: Resolution,
    denyReason: string | undefined,
    context: NodeExecutionContext,
  ): Decided {
    const { threadId } = context.thread;
    if (resolution === 'retry') {
      return {
        call: approve(call, call.approvedBy),
        effects: {
          toolCalls: [
            { kind: 'status', threadId, toolCallId: call.id, from: ['unknown'], to: 'approved', at: this.now() },
          ],
        },
      };
    }
    const status = resolution === 'done' ? 'SUCCESS' : 'ERROR';
    const detail =
      resolution === 'done'
        ? 'A person confirmed the call ran; its result was lost in a restart.'
        : `The call's outcome is unknown and a person marked it failed${denyReason ? `: ${denyReason}` : ''}.`;
    return {
      call: finish(call, status, detail),
      effects: this.finished(threadId, call.id, { status, content: toolMessage(status, detail) }),
    };
  }

  /** The outcome's write: with the next durability point, or at the end of this turn. */
  private finished(threadId: string, toolCallId: string, outcome: NonNullable<ToolExecutionRecord['outcome']>) {
    return {
      toolCalls: [{ kind: 'finish' as const, threadId, toolCallId, outcome, at: this.now() }],
      durable: 'soon' as const,
    };
  }

  /** When the claim of the process that ran the call ended (the thread's lease as this run read it). */
  private claimEnded(context: NodeExecutionContext): string | undefined {
    return context.run.previousLease?.until;
  }

  private now(): string {
    return isoTime(this.clock.now());
  }
}

/** A call that finished before a crash: its stored outcome stands; it does not run again. */
function replayOutcome(call: ReadyCall, tool: Tool, record: ToolExecutionRecord): TurnCall {
  const outcome = record.outcome;
  if (outcome === undefined) return finish(call, 'ERROR', 'The call finished, but its outcome was not kept.');
  if (outcome.status === 'SUCCESS' && tool.requireResultApproval) return awaitResult(call, outcome.output);
  // The model is told what it was told when the call ended, word for word.
  return {
    ...finish(call, outcome.status, outcome.status === 'SUCCESS' ? outcome.output : undefined),
    content: outcome.content,
  };
}
