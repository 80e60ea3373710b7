import {
  ToolApprovalResponse,
  type ApprovalStage,
  type InteractionFailureReason,
  type QuorumConfig,
} from '@interlock/sdk-types';
import type { InteractionSpec } from '../interaction/interaction-gateway.js';
import type { InteractionRecord } from '../persistence/checkpoint-store.js';
import { requestQuorum } from '../policy/approval-quorum.js';
import type { Tool } from './define-tool.js';
import {
  abandon,
  approve,
  argumentsOf,
  finish,
  stageOf,
  withArguments,
  type AwaitingCall,
  type TurnCall,
} from './turn-state.js';

/** How a pinned tool's definition changed since it was approved. */
export interface DefinitionChange {
  previousHash: string;
  hash: string;
  diff: string;
}

const PROMPTS: Record<ApprovalStage, (toolName: string) => string> = {
  execution: (toolName) => `Allow ${toolName} to run with these arguments?`,
  result: (toolName) => `Let the model see the result of ${toolName}?`,
  recovery: (toolName) =>
    `${toolName} started before the process stopped and its outcome is unknown. Did it run (done), should it run again (retry), or did it fail (failed)?`,
};

/** An audit entry of a decision about a call, before the log adds the call's identity. */
export interface AuditDraft {
  outcome: 'allow' | 'deny';
  decidedBy: string;
  rule: string;
  reason: string;
  stage: ApprovalStage;
  responder?: string;
  editedArguments?: Record<string, unknown>;
  interactionId?: string;
}

/**
 * The questions for a batch of calls at one stage (pure): one interaction per call, sharing a
 * batch id so a surface can show them together. `changes[i]` is how the definition of call
 * i's tool changed since it was approved, if it did; `workspaceRoot` is where the asking
 * process reads the call's relative and absolute paths.
 */
export function approvalSpecs(
  calls: readonly TurnCall[],
  stage: ApprovalStage,
  on: {
    nodeId: string;
    timeout: number;
    toolOf: (name: string) => Tool | undefined;
    changes?: readonly (DefinitionChange | undefined)[];
    /** The thread's quorum (F51), and the time its escalation counts from. */
    quorum?: QuorumConfig;
    now?: number;
    /** The workspace the asking process decides against (stored in `metadata.workspaceRoot`). */
    workspaceRoot?: string;
  },
): InteractionSpec[] {
  const batchId = `${on.nodeId}:${calls[0]?.id ?? ''}`;
  return calls.map((call, index): InteractionSpec => {
    const tool = on.toolOf(call.name);
    const definitionChange = on.changes?.[index];
    const prompt = definitionChange
      ? `The definition of ${call.name} changed since it was approved (see the diff). ${PROMPTS[stage](call.name)}`
      : PROMPTS[stage](call.name);
    // The process that ran it lost its claim: it may still be running (frozen, cut off), and finish the call.
    const holder =
      call.phase === 'awaiting-recovery' && call.claimEndedAt !== undefined
        ? ` The process that ran it may still be running: its claim on the thread ended at ${call.claimEndedAt}, and it cannot write any more, but its call may still take effect.`
        : '';
    const riskLevel = tool?.riskLevel ?? 'HIGH';
    const quorum = requestQuorum(on.quorum, { riskLevel, stage }, { now: on.now ?? 0, timeout: on.timeout });
    return {
      nodeId: on.nodeId,
      operationType: 'TOOL_APPROVAL',
      prompt: `${prompt}${holder}`,
      timeout: on.timeout,
      // An answerer elsewhere (a deployment's inbox, `interlock respond`) checks an edit's
      // paths against the workspace the call was asked in, not its own (issue 28).
      metadata: on.workspaceRoot === undefined ? {} : { workspaceRoot: on.workspaceRoot },
      toolApproval: {
        toolCallId: call.id,
        toolName: call.name,
        toolDescription: tool?.description ?? '',
        toolParameters: argumentsOf(call),
        ...(tool ? { parametersSchema: tool.jsonSchema } : {}),
        category: tool?.category ?? 'command',
        riskLevel,
        rule: call.rule ?? 'ask',
        stage,
        ...(stage === 'result' && call.phase === 'awaiting-result' ? { result: call.result } : {}),
        rememberable: stage === 'execution' && call.rememberable === true,
        ...(definitionChange ? { definitionChange } : {}),
        batch: { id: batchId, index, size: calls.length },
        ...(quorum === undefined ? {} : { quorum }),
      },
    };
  });
}

/** What became of a call whose outcome was unknown, as a person said. */
export type Resolution = 'done' | 'retry' | 'fail';

/**
 * The audit's reason for each answer to a call whose outcome was unknown: it starts with the
 * answer's word (`done`, `retry`, `failed`), which the surfaces that read the trail show.
 */
const RESOLVED: Readonly<Record<Resolution, string>> = {
  done: 'done: a person said it ran',
  retry: 'retry: a person had it run again',
  fail: 'failed: a person said it failed',
};

/** How a settled interaction moves its call (pure); the pipeline carries out what it says. */
export type AnswerReading =
  /** The wait failed (timeout, cancelled, no handler…): the call ends. */
  | { kind: 'failed'; reason: InteractionFailureReason; message: string; audit: AuditDraft; next: TurnCall }
  /** A person approved with edited arguments the tool or the rules refuse: the call ends. */
  | { kind: 'refused-edit'; response: ToolApprovalResponse; responder?: string; audit: AuditDraft; next: TurnCall }
  /**
   * A person answered. `next` is the call after it (for a recovery, the call as it waits for
   * `resolution` to be carried out); `remember` asks to remember the approval for the session.
   */
  | {
      kind: 'answered';
      response: ToolApprovalResponse;
      responder?: string;
      audit: AuditDraft;
      next: TurnCall;
      remember: boolean;
      resolution?: Resolution;
    };

/**
 * Reads a settled interaction about `call` (pure). `refuseEdit` says why edited arguments
 * may not run, or undefined; `automaticMemory` is `sessionMemory = automatic`.
 */
export function readAnswer(
  call: AwaitingCall,
  record: InteractionRecord,
  refuseEdit: (edited: Record<string, unknown>) => string | undefined,
  automaticMemory: boolean,
): AnswerReading {
  const stage = stageOf(call);
  const rule = call.rule ?? 'ask';
  if (record.status === 'failed') {
    const reason: InteractionFailureReason = record.failureReason ?? 'handler_error';
    const message = record.failureMessage ?? reason;
    const audit: AuditDraft = { outcome: 'deny', decidedBy: `interaction:${reason}`, rule, reason: message, stage };
    // Only a call that did not run can say "nobody approved it in time".
    if (stage === 'execution' && reason === 'timeout')
      return { kind: 'failed', reason, message, audit, next: finish(call, 'TIMEOUT', message) };
    return {
      kind: 'failed',
      reason,
      message,
      audit,
      next: abandon(call, stage === 'result' ? reason : `no approval (${reason}): ${message}`),
    };
  }
  const response = ToolApprovalResponse.parse(record.response?.input);
  const responder = record.response?.responder;
  const by = responder === undefined ? {} : { responder };
  const edited = response.approved ? response.editedParameters : undefined;
  const refused = edited ? refuseEdit(edited) : undefined;
  if (refused !== undefined) {
    // Checked again where the tool lives: an answer stored by another process (a
    // deployment's inbox, which has not the tool) never runs arguments the tool or the rules refuse.
    const audit: AuditDraft = { outcome: 'deny', decidedBy: 'person', rule: 'edit:refused', reason: refused, stage };
    return { kind: 'refused-edit', response, ...by, audit, next: finish(call, 'EXECUTION_REJECTED', refused) };
  }
  const answered: TurnCall = {
    ...(edited ? withArguments(call, edited) : call),
    ...(response.userInstruction ? { userInstruction: response.userInstruction } : {}),
    ...by,
  };
  const approvers = record.quorum?.approvals.map((approval) => approval.responder) ?? [];
  const approvedBy =
    record.request.toolApproval?.quorum !== undefined && approvers.length > 0
      ? `approved by ${approvers.length} approvers: ${approvers.join(', ')}`
      : 'approved by a person';
  const audit: AuditDraft = {
    outcome: response.approved ? 'allow' : 'deny',
    decidedBy: 'person',
    rule,
    reason: response.approved ? approvedBy : (response.denyReason ?? 'rejected by a person'),
    stage,
    ...by,
    ...(edited ? { editedArguments: edited } : {}),
  };
  // Seed 003: an approved MEDIUM call is remembered for the window, unless sessionMemory is `explicit`.
  const remember =
    response.approved &&
    call.rememberable === true &&
    (response.remember === true || (automaticMemory && stage === 'execution'));
  const reading = { kind: 'answered' as const, response, ...by, audit, remember };
  if (stage === 'recovery') {
    // Only `retry` runs it again: an answer without a resolution (stored before issue 37) never does.
    const resolution = response.resolution ?? 'fail';
    const said = `${RESOLVED[resolution]}${resolution === 'fail' && response.denyReason ? `: ${response.denyReason}` : ''}`;
    return { ...reading, audit: { ...audit, reason: said }, next: answered, resolution };
  }
  if (stage === 'result') {
    return {
      ...reading,
      next: response.approved
        ? finish(answered, 'SUCCESS', call.phase === 'awaiting-result' ? call.result : undefined)
        : finish(answered, 'RESULT_REJECTED', response.denyReason ?? ''),
    };
  }
  if (response.approved)
    return { ...reading, next: approve(answered, responder === undefined ? 'person' : `person:${responder}`) };
  return {
    ...reading,
    next: finish(
      answered,
      'EXECUTION_REJECTED',
      `the user rejected it${response.denyReason ? `: ${response.denyReason}` : ''}`,
    ),
  };
}
