import type { InputKind, ToolApprovalDetails, UserInteractionRequest } from '@interlock/sdk-types';
import { callLabel, describeToolCall } from './approval/tool-call-view.js';
import { makeVisible } from './approval/visible-text.js';
import type { TerminalStyle } from './terminal-style.js';

const INDENT = '  ';
const LONGEST_SUMMARY = 72;

/** How `interlock respond` answers a tool approval at each stage. */
const APPROVAL_ANSWERS: Record<ToolApprovalDetails['stage'], string> = {
  execution: "approve | reject [--reason R] | edit '<json>'",
  result: 'approve | reject [--reason R]',
  recovery: '--resolution done|retry|failed [--reason R]',
};

/**
 * One line about a request, for lists and advice: its node and operation, then the call
 * (`write_file(NOTES.md) · risk MEDIUM · rule ask:risk:MEDIUM`) or the first line of the question.
 */
export function summariseRequest(request: UserInteractionRequest): string {
  const where = `node "${request.nodeId}" · ${request.operationType}`;
  const details = request.toolApproval;
  if (details) {
    const quorum =
      details.quorum === undefined ? '' : ` · ${details.quorum.given} of ${details.quorum.required} approvals`;
    const stage = details.stage === 'execution' ? '' : ` · stage ${details.stage}`;
    return `${where} · ${callLabel(details.toolName, details.toolParameters)} · risk ${details.riskLevel} · rule ${details.rule}${stage}${quorum}`;
  }
  const [firstLine = ''] = makeVisible(request.prompt).split('\n');
  const question = firstLine.length > LONGEST_SUMMARY ? `${firstLine.slice(0, LONGEST_SUMMARY - 1)}…` : firstLine;
  return `${where} · ${question}`;
}

/**
 * Everything `interlock pending` shows about one request: its id, thread, workflow, node,
 * operation type and deadline; then the tool call in full (tool, description, category,
 * risk, rule, arguments) or the question and how it may be answered; then the command
 * that answers it.
 */
export function describePendingRequest(
  request: UserInteractionRequest,
  style: TerminalStyle,
  storeFlag = '',
): string[] {
  const deadline = request.deadline === null ? 'no deadline' : `answer by ${request.deadline}`;
  const lines = [
    `${style.bold(request.interactionId)}  ${style.yellow(request.operationType)}`,
    `${INDENT}${style.dim(`thread ${request.threadId} · workflow "${request.workflowId}" · node "${request.nodeId}" · channel ${request.session.channel} · asked ${request.requestedAt} · ${deadline}`)}`,
  ];
  const details = request.toolApproval;
  if (details) {
    lines.push(...describeToolCall(details, style).map((line) => `${INDENT}${line}`));
    if (details.quorum !== undefined)
      lines.push(...describeQuorum(details.quorum, style).map((line) => `${INDENT}${line}`));
    const answers = APPROVAL_ANSWERS[details.stage];
    lines.push(`${INDENT}${style.dim(`answer: interlock respond ${request.interactionId} ${answers}${storeFlag}`)}`);
    return lines;
  }
  lines.push(
    ...makeVisible(request.prompt)
      .split('\n')
      .map((line) => `${INDENT}${style.bold(line)}`),
  );
  lines.push(`${INDENT}${style.dim(`input: ${describeInputKind(request.input)}`)}`);
  lines.push(
    `${INDENT}${style.dim(`answer: interlock respond ${request.interactionId} ${answerHint(request)}${storeFlag}`)}`,
  );
  return lines;
}

/**
 * Where a call that needs several approvers stands (F51): `approvals: 1 of 2 (web:alice)`,
 * the edited arguments those approvals are for, and its escalation.
 */
export function describeQuorum(quorum: NonNullable<ToolApprovalDetails['quorum']>, style: TerminalStyle): string[] {
  const by =
    quorum.approvedBy.length === 0 ? '' : ` (${quorum.approvedBy.map((name) => makeVisible(name)).join(', ')})`;
  const lines = [
    style.bold(
      `approvals: ${quorum.given} of ${quorum.required}${by}: the call runs once ${quorum.required} different approvers approve the same arguments; the requester's approval does not count`,
    ),
  ];
  if (quorum.arguments !== undefined)
    lines.push(
      `approved so far with edited arguments: ${makeVisible(JSON.stringify(quorum.arguments))} (approve them with edit '<json>'; a plain approve approves the proposal and starts over)`,
    );
  const { escalation } = quorum;
  if (escalation !== undefined)
    lines.push(
      escalation.escalated
        ? `escalated: ${escalation.approvers.map((name) => makeVisible(name)).join(', ')} may approve too`
        : `escalates at ${escalation.at} to ${escalation.approvers.map((name) => makeVisible(name)).join(', ')}`,
    );
  return lines;
}

/**
 * How `interlock respond` answers a request, for advice: `approve` (`--resolution
 * done|retry|failed` for a call whose outcome is unknown), `answer yes|no`,
 * `answer '<yes|no>'` for a choice, `answer '<json>'`, `answer '<text>'`.
 */
export function answerHint(request: UserInteractionRequest): string {
  if (request.operationType === 'TOOL_APPROVAL')
    return request.toolApproval?.stage === 'recovery' ? '--resolution done|retry|failed' : 'approve';
  const kind = request.input;
  switch (kind?.kind) {
    case 'choice':
      return `answer '<${kind.options.map((option) => (typeof option === 'string' ? option : option.value)).join('|')}>'`;
    case 'confirm':
      return 'answer yes|no';
    case 'json':
      return "answer '<json>'";
    case 'text':
    case undefined:
      return "answer '<text>'";
  }
}

/** `choice: yes | no`, `yes or no`, `JSON`, `text`. */
export function describeInputKind(kind: InputKind | undefined): string {
  switch (kind?.kind) {
    case 'choice':
      return `one of: ${kind.options.map((option) => (typeof option === 'string' ? option : option.value)).join(' | ')}`;
    case 'confirm':
      return 'yes or no';
    case 'json':
      return kind.schema === undefined ? 'JSON' : `JSON matching ${JSON.stringify(kind.schema)}`;
    case 'text':
    case undefined:
      return 'text';
  }
}
