import { inject, injectable } from 'inversify';
import { ToolApprovalResponse } from '@interlock/sdk-types';
import { TYPES } from '../di/tokens.js';
import { InterlockError } from '../errors/interlock-error.js';
import type { ApprovalPolicy } from '../policy/approval-policy.js';
import type { ToolRegistry } from '../tools/tool-registry.js';
import type { InteractionRecord } from '../persistence/checkpoint-store.js';
import { parseStrictly } from '../tools/strict-arguments.js';
import { interpretInput } from './interpret-input.js';
import { standInTool, workspaceOfRequest } from './stand-in-tool.js';

/** The answers to a call whose outcome is unknown (stage `recovery`), as typed: `failed` is stored as `fail`. */
const RESOLUTIONS: ReadonlyMap<string, 'done' | 'retry' | 'fail'> = new Map([
  ['done', 'done'],
  ['retry', 'retry'],
  ['failed', 'fail'],
  ['fail', 'fail'],
]);
const YES = new Set(['y', 'yes', 'approve', 'approved', 'allow', 'true']);
const NO = new Set(['n', 'no', 'reject', 'rejected', 'deny', 'false']);

/**
 * Turns a raw answer into the value the engine applies, or refuses it with
 * INTERACTION_INVALID_RESPONSE (the interaction then stays pending when the answer came
 * through `respond()`). Validation happens once, here, at the boundary.
 */
@injectable()
export class ResponseInterpreter {
  constructor(
    @inject(TYPES.ToolRegistry) private readonly tools: ToolRegistry,
    @inject(TYPES.ApprovalPolicy) private readonly policy: ApprovalPolicy,
    @inject(TYPES.WorkspaceRoot) private readonly workspaceRoot: string,
  ) {}

  interpret(interaction: InteractionRecord, raw: unknown): unknown {
    const { request } = interaction;
    if (request.operationType !== 'TOOL_APPROVAL') return interpretInput(request.input, raw);
    return this.interpretApproval(interaction, raw);
  }

  private interpretApproval(interaction: InteractionRecord, raw: unknown): ToolApprovalResponse {
    const invalid = (message: string) =>
      new InterlockError('INTERACTION_INVALID_RESPONSE', message, { details: { input: raw } });
    const details = interaction.request.toolApproval;
    if (!details) throw invalid('this approval request has no tool call');
    const resolution = typeof raw === 'string' ? RESOLUTIONS.get(raw.trim().toLowerCase()) : undefined;
    const parsed = ToolApprovalResponse.safeParse(
      details.stage === 'recovery' && resolution !== undefined
        ? { approved: resolution !== 'fail', resolution }
        : normalise(raw),
    );
    if (!parsed.success) {
      throw invalid(
        `expected { approved: boolean, editedParameters?, userInstruction?, denyReason?, remember? }: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ')}`,
      );
    }
    const response = parsed.data;
    if (response.resolution !== undefined && details.stage !== 'recovery') {
      throw invalid('resolution (done, retry, failed) answers only a call whose outcome is unknown');
    }
    if (details.stage === 'recovery' && response.editedParameters !== undefined) {
      throw invalid(`a call whose outcome is unknown cannot be edited: ${RECOVERY_ANSWERS}`);
    }
    // F40 (issue 37): "approve" does not say whether the call ran; it never runs it again.
    if (details.stage === 'recovery' && response.approved && response.resolution === undefined) {
      throw invalid(
        `${details.toolName} started before the process stopped and its outcome is unknown, so an approval does not answer it: ${RECOVERY_ANSWERS}`,
      );
    }
    if (response.remember && !details.rememberable) {
      throw invalid(`"remember for this session" is not offered for ${details.toolName} at ${details.riskLevel} risk`);
    }
    if (response.editedParameters === undefined) return response;
    if (!response.approved) throw invalid('editedParameters only make sense with approved: true');
    if (details.stage === 'result') throw invalid('a result cannot be edited: approve or reject it');
    // A process that does not hold the tool (a deployment's inbox, `interlock respond`) checks
    // what the request says of it; the worker that holds it checks again before it runs.
    const held = this.tools.find(details.toolName);
    const tool = held ?? standInTool(details, workspaceOfRequest(interaction.request, this.workspaceRoot));
    if ('problem' in tool) throw invalid(tool.problem);
    const edited = parseStrictly(tool.parameters, response.editedParameters);
    if (!edited.ok) throw invalid(`the edited arguments do not match the schema of ${tool.name}: ${edited.problem}`);
    const editedParameters = edited.value;
    const call = { toolName: tool.name, arguments: editedParameters };
    const scope = { channel: interaction.request.session.channel };
    const decision = held ? this.policy.decide(call, scope) : this.policy.decideAbout(tool, call, scope);
    if (decision.outcome === 'deny') {
      throw invalid(`the edited arguments are denied (${decision.rule}): ${decision.reason}`);
    }
    return { ...response, editedParameters };
  }
}

/** How the recovery question is answered, for the messages that refuse another answer. */
export const RECOVERY_ANSWERS = 'answer done (it ran: go on), retry (run it again) or failed (report that it failed)';

/** Accepts `true`/`false` and yes/no words as shorthands for `{ approved }`, and `resolution: "failed"` for `"fail"`. */
function normalise(raw: unknown): unknown {
  if (typeof raw === 'object' && raw !== null && 'resolution' in raw && raw.resolution === 'failed')
    return { ...raw, resolution: 'fail' };
  if (typeof raw === 'boolean') return { approved: raw };
  if (typeof raw === 'string') {
    const word = raw.trim().toLowerCase();
    if (YES.has(word)) return { approved: true };
    if (NO.has(word)) return { approved: false };
  }
  return raw;
}
