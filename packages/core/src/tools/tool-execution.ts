import type { Clock } from '../engine/clock.js';
import { durable, failpointAfterCommit } from '../engine/durability.js';
import { failpoint } from '../engine/failpoints.js';
import type { NodeExecutionContext } from '../engine/node-executor.js';
import { fenceOf } from '../engine/thread-claims.js';
import { toInterlockError } from '../errors/interlock-error.js';
import type { ICheckpointStore, ToolExecutionRecord, ToolExecutionStatus } from '../persistence/checkpoint-store.js';
import { hashArguments } from '../policy/canonical-arguments.js';
import type { Resolution } from './approval-requests.js';
import type { Tool } from './define-tool.js';
import { toolMessage } from './tool-messages.js';
import {
  approve,
  awaitRecovery,
  awaitResult,
  describeCall,
  finish,
  type ReadyCall,
  type TurnCall,
} from './turn-state.js';

/**
 * Runs approved calls behind their write-ahead record (F40): the approval is stored bound to
 * the hash of the exact arguments, then `started` only if that hash matches, and durable
 * before the side effect. A call found `finished` is never run again; one found `started`
 * (the process died while it ran) runs again only if its tool is idempotent, otherwise a
 * person says what happened.
 */
export class ToolExecution {
  constructor(
    private readonly store: ICheckpointStore,
    private readonly clock: Clock,
    private readonly workspaceRoot: string,
  ) {}

  /** Runs `call` once; returns it finished, waiting for its result's approval, or with an unknown outcome. */
  async run(call: ReadyCall, tool: Tool | undefined, context: NodeExecutionContext, nodeId: string): Promise<TurnCall> {
    if (!tool) return finish(call, 'NOT_FOUND', `No tool named "${call.name}".`);
    const blocked = await this.start(call, tool, context, nodeId);
    if (blocked) return blocked;
    context.emit({ type: 'TOOL_CALL_STARTED', ...describeCall(call, nodeId) });
    const { threadId } = context.thread;
    try {
      const result = await tool.execute(tool.parameters.parse(call.finalArguments), {
        threadId,
        nodeId,
        toolCallId: call.id,
        signal: context.signal,
        workspaceRoot: this.workspaceRoot,
        ...(call.userInstruction === undefined && call.responder === undefined
          ? {}
          : {
              approval: {
                ...(call.userInstruction === undefined ? {} : { userInstruction: call.userInstruction }),
                ...(call.responder === undefined ? {} : { responder: call.responder }),
              },
            }),
      });
      await failpointAfterCommit('tool:effect-done', this.store);
      const outcome = { status: 'SUCCESS' as const, output: result, content: toolMessage('SUCCESS', result) };
      await this.store.markToolFinished(threadId, call.id, outcome, this.now(), fenceOf(context.thread));
      return tool.requireResultApproval ? awaitResult(call, result) : finish(call, 'SUCCESS', result);
    } catch (error) {
      const failure = toInterlockError(error);
      // The claim was taken meanwhile (this process froze past it): write nothing more.
      if (failure.code === 'STORE_CONFLICT') throw failure;
      // A tool that did not answer in time (an MCP server that hangs) ends as TIMEOUT, anything else as ERROR.
      const status = failure.code === 'TOOL_TIMEOUT' ? 'TIMEOUT' : 'ERROR';
      const detail = status === 'TIMEOUT' ? failure : failure.message;
      await this.store.markToolFinished(
        threadId,
        call.id,
        { status, content: toolMessage(status, detail) },
        this.now(),
        fenceOf(context.thread),
      );
      return finish(call, status, detail);
    }
  }

  /** Carries out what a person said about a call whose outcome was unknown. */
  async resolve(
    call: TurnCall,
    resolution: Resolution,
    denyReason: string | undefined,
    context: NodeExecutionContext,
  ): Promise<TurnCall> {
    const { threadId } = context.thread;
    if (resolution === 'retry') {
      await this.store.setToolExecutionStatus(
        threadId,
        call.id,
        ['unknown'],
        'approved',
        this.now(),
        fenceOf(context.thread),
      );
      return approve(call, call.approvedBy);
    }
    const status = resolution === 'done' ? 'SUCCESS' : 'ERROR';
    const detail =
      resolution === 'done'
        ? 'A person confirmed the call ran; its result was lost in a restart.'
        : `The call's outcome is unknown and a person marked it failed${denyReason ? `: ${denyReason}` : ''}.`;
    await this.store.markToolFinished(
      threadId,
      call.id,
      { status, content: toolMessage(status, detail) },
      this.now(),
      fenceOf(context.thread),
    );
    return finish(call, status, detail);
  }

  /** Writes the write-ahead record; returns undefined when the tool may run now, else what the call became. */
  private async start(
    call: ReadyCall,
    tool: Tool,
    context: NodeExecutionContext,
    nodeId: string,
  ): Promise<TurnCall | undefined> {
    const { threadId } = context.thread;
    const fence = fenceOf(context.thread);
    const argumentsHash = hashArguments(call.finalArguments);
    await this.store.recordToolApproval(
      {
        threadId,
        toolCallId: call.id,
        toolName: tool.name,
        argumentsHash,
        arguments: call.finalArguments,
        approvedBy: call.approvedBy ?? call.rule ?? 'unknown',
        idempotent: tool.idempotent === true,
        createdAt: this.now(),
      },
      fence,
    );
    await failpointAfterCommit('tool:approved', this.store);
    const from: ToolExecutionStatus[] = tool.idempotent ? ['approved', 'started'] : ['approved'];
    if (await this.store.markToolStarted(threadId, call.id, argumentsHash, from, this.now(), fence)) {
      // Write-ahead: the approval and `started` are durable before the side effect.
      await durable(this.store);
      failpoint('tool:started');
      return undefined;
    }
    // It did not start: it finished before (its outcome stands) or died while running.
    let execution = await this.store.getToolExecution(threadId, call.id);
    // Started and unfinished: this run's claim was taken from a process that died or froze
    // past its lease while the call ran. Unknown, unless that process's outcome landed first.
    if (
      execution?.status === 'started' &&
      !(await this.store.setToolExecutionStatus(threadId, call.id, ['started'], 'unknown', this.now(), fence))
    ) {
      execution = await this.store.getToolExecution(threadId, call.id);
    }
    if (execution?.status === 'finished' && execution.outcome) return replayOutcome(call, tool, execution.outcome);
    if (execution?.status === 'started') {
      context.emit({ type: 'TOOL_CALL_OUTCOME_UNKNOWN', ...describeCall(call, nodeId) });
      return awaitRecovery(call);
    }
    if (execution?.status === 'unknown') return awaitRecovery(call);
    return finish(call, 'ERROR', 'No stored approval matches these exact arguments, so the call was not run.');
  }

  private now(): string {
    return new Date(this.clock.now()).toISOString();
  }
}

/** A call that finished before a crash: its stored outcome stands; it does not run again. */
function replayOutcome(call: ReadyCall, tool: Tool, outcome: NonNullable<ToolExecutionRecord['outcome']>): TurnCall {
  if (outcome.status === 'SUCCESS' && tool.requireResultApproval) return awaitResult(call, outcome.output);
  // The model is told what it was told when the call ended, word for word.
  return {
    ...finish(call, outcome.status, outcome.status === 'SUCCESS' ? outcome.output : undefined),
    content: outcome.content,
  };
}
