import { isAbsolute, normalize } from 'node:path';
import { evaluateExpression } from '../expressions/expressions.js';
import { assertJsonArguments } from './canonical-arguments.js';
import { protectedReach, protectedWrite } from './protected-paths.js';
import type { WorkspaceWrite } from './reached-path.js';
import type { Tool } from '../tools/define-tool.js';
import type { ShellClassification } from './shell/index.js';
import type { ResolvedApprovalOptions } from './approval-options.js';
import { SessionMemory, type MemoryScope } from './session-memory.js';

export type ApprovalOutcome = 'allow' | 'ask' | 'deny';

/** What the pipeline needs of the shell rules (see policy/shell): a classification of a command line. */
export interface ShellClassifierPort {
  /** `analysed` (see {@link ShellClassification}) may be left out: then yolo asks about every command not proven safe. */
  classify(command: string): Pick<ShellClassification, 'verdict' | 'rule' | 'reasons'> & { analysed?: boolean };
}

/** A proposed call: the tool's name and the arguments as the model gave them. */
export interface ApprovalCall {
  toolName: string;
  arguments: Record<string, unknown>;
}

/** Everything the pipeline reads. It reads; it never waits and never writes. */
export interface ApprovalContext {
  tools: { find(name: string): Tool | undefined };
  options: ResolvedApprovalOptions;
  /** The workflow's `config.toolApproval.autoApprovedTools` (F17). */
  autoApprovedTools: readonly string[];
  shell: ShellClassifierPort;
  /**
   * Remembered approvals ("for this session"); `SessionMemory` is one. `known`: the caller
   * looked this call up already (the store-backed policy does), so no key is computed.
   */
  memory: { has(key: string, now: number): boolean; readonly known?: boolean };
  scope: MemoryScope;
  now: number;
  /**
   * Where a path given to a file tool really reaches (symlinks followed, issue 24). Without
   * it the paths are checked as written only.
   */
  workspace?: { write(path: string): WorkspaceWrite };
}

/** One rule the pipeline looked at, and what it said. */
export interface RuleStep {
  rule: string;
  result: ApprovalOutcome | 'skip';
  reason?: string;
}

export interface ApprovalDecision {
  outcome: ApprovalOutcome;
  /** The rule that decided, e.g. `category:read`, `shell:banned:rm-root`, `ask:risk:HIGH`. */
  rule: string;
  reason: string;
  /** Every rule looked at, in order, ending with the one that decided (F42). */
  path: RuleStep[];
  /** True when the tool does not exist: the call is reported as NOT_FOUND. */
  notFound: boolean;
  /** Whether "remember for this session" may be offered to the approver (MEDIUM risk, not a risky command). */
  rememberable: boolean;
}

/**
 * The approval pipeline (F24): one function, first match wins, security rules before
 * convenience rules, so no mode or whitelist can open what a deny rule or the shell
 * rules closed. The order is documented in docs/approval-pipeline.md.
 *
 * @throws InterlockError TOOL_ARGUMENTS_INVALID for arguments that are not plain JSON.
 */
export function decideApproval(call: ApprovalCall, context: ApprovalContext): ApprovalDecision {
  // Only JSON is decided: NaN, a Map or undefined would be decided as another value (issue 24).
  assertJsonArguments(call.arguments);
  const path: RuleStep[] = [];
  const { options } = context;
  const tool = context.tools.find(call.toolName);
  const decide = (
    outcome: ApprovalOutcome,
    rule: string,
    reason: string,
    extra: Partial<ApprovalDecision> = {},
  ): ApprovalDecision => {
    path.push({ rule, result: outcome, reason });
    return { outcome, rule, reason, path, notFound: false, rememberable: false, ...extra };
  };
  const skip = (rule: string, reason?: string) =>
    path.push({ rule, result: 'skip', ...(reason === undefined ? {} : { reason }) });

  // 1. Approval switched off for this run.
  if (!options.enabled) return decide('allow', 'approval:disabled', 'approval.enabled is false');
  skip('approval:disabled');

  // 2. Unknown tool: never executed.
  if (!tool) return decide('deny', 'tool:not-found', `no tool named "${call.toolName}"`, { notFound: true });
  // 2b. A tool that cannot be called here (its MCP server is down): nobody is asked about it.
  if (tool.unavailable !== undefined) return decide('deny', 'tool:unavailable', tool.unavailable);

  // 3. Deny rules and banned shell commands.
  const ruleVariables = { tool: tool.name, args: call.arguments, category: tool.category, risk: tool.riskLevel };
  // A deny rule that cannot be evaluated on these arguments never lets the call through: it asks.
  let unevaluated: { index: number; expression: string; error: string } | undefined;
  for (const [index, expression] of options.denyRules.entries()) {
    const result = evaluateRule(expression, ruleVariables);
    if (result === true) return decide('deny', `deny-rule:${index}`, `deny rule \`${expression}\` matches`);
    if (typeof result === 'string') unevaluated ??= { index, expression, error: result };
  }
  skip('deny-rules');
  const shell = tool.shellCommand ? classifyShell(tool, call, context.shell) : undefined;
  if (shell?.verdict === 'banned') return decide('deny', shell.rule, `banned command: ${shell.reasons.join('; ')}`);
  if (shell) skip('shell:banned');
  if (unevaluated) {
    return decide(
      'ask',
      `deny-rule:${unevaluated.index}:failed`,
      `deny rule \`${unevaluated.expression}\` could not be evaluated (${unevaluated.error}): a person decides`,
    );
  }

  // 3b. Paths a file tool would write: outside the workspace or Interlock's store, never;
  // a protected path (`.git`, shell startup files, credentials, settings) asks in every mode.
  // Both hold for the path the write really reaches, symlinks followed (issue 24).
  const written = writtenPaths(tool, call);
  const reaches = written.map((path) => ({ path, write: context.workspace?.write(path) }));
  for (const { path, write } of reaches) {
    const outside = outsideWorkspace(path) ?? leavesWorkspace(write);
    if (outside)
      return decide('deny', 'path:outside-workspace', `${path} ${outside}: the file tools work inside the workspace`);
  }
  const protectedPaths = reaches.flatMap(({ path, write }) => [
    ...[protectedWrite(path)].flatMap((found) => found ?? []),
    ...(write?.reached ?? []).flatMap((reached) => protectedReach(path, reached) ?? []),
  ]);
  const store = protectedPaths.find((found) => found.kind === 'interlock');
  if (store) return decide('deny', 'path:protected:interlock', `${store.reason}: an agent never writes it`);
  if (written.length > 0) skip('path:workspace');

  // 4. Tools that exist to ask the person.
  if (tool.category === 'ask') return decide('ask', 'category:ask', 'this tool always asks the user');
  skip('category:ask');

  // 4b. Protected paths ask in every mode, whatever an override or a whitelist says.
  const guarded = protectedPaths[0];
  if (guarded)
    return decide('ask', `path:protected:${guarded.kind}`, `${guarded.reason}: a person decides, in every mode`);
  if (written.length > 0) skip('path:protected');

  // 5. Per-tool overrides, then the tool's own demand.
  const override = options.toolOverrides[tool.name];
  if (override === 'deny') return decide('deny', `override:${tool.name}`, 'toolOverrides says deny');
  if (override === true) return decide('ask', `override:${tool.name}`, 'toolOverrides says ask');
  // An override may skip the person, but never the shell rules of step 6: risky commands always ask.
  if (override === false && (!shell || shell.verdict === 'safe'))
    return decide('allow', `override:${tool.name}`, 'toolOverrides says allow');
  if (tool.requireExecutionApproval === true)
    return decide('ask', 'tool:require-execution-approval', 'the tool always asks');
  skip('overrides');

  // 6. High-risk shell commands, and those the rules could not read through, ask in every
  // mode. One that was read completely and is only not read-only (`mkdir`, `npm test`) asks
  // too, except in yolo (seed 002: yolo runs every command that is not high-risk or banned).
  const strict = options.strictMode && tool.riskLevel !== 'LOW';
  const yolo = options.mode === 'yolo' && !strict;
  if (shell && shell.verdict !== 'safe' && !(yolo && shell.verdict === 'ask' && shell.analysed === true)) {
    return decide(
      'ask',
      shell.rule,
      `${shell.verdict === 'high-risk' ? 'high-risk command' : 'not provably safe'}: ${shell.reasons.join('; ')}`,
    );
  }
  if (shell) skip('shell:risk');

  // 7. yolo (strictMode keeps asking for every call that is not LOW risk, whatever the mode).
  if (yolo) return decide('allow', 'mode:yolo', 'yolo mode runs everything not stopped above');
  skip('mode:yolo');

  if (strict) {
    skip('strict-mode', 'strictMode: only LOW-risk tools skip the person');
  } else {
    const remembered = convenience(tool, call, context, decide, skip);
    if (remembered) return remembered;
  }

  // 13. A person decides.
  return decide(
    'ask',
    `ask:risk:${tool.riskLevel}`,
    `${tool.category} tool with ${tool.riskLevel} risk needs a person`,
    {
      rememberable: tool.riskLevel === 'MEDIUM',
    },
  );
}

type Decide = (
  outcome: ApprovalOutcome,
  rule: string,
  reason: string,
  extra?: Partial<ApprovalDecision>,
) => ApprovalDecision;

/** Steps 8–12: the rules that let a call run without a person. */
function convenience(
  tool: Tool,
  call: ApprovalCall,
  context: ApprovalContext,
  decide: Decide,
  skip: (rule: string, reason?: string) => void,
): ApprovalDecision | undefined {
  const { options } = context;
  // 8. Reads and LOW risk.
  if (tool.category === 'read') return decide('allow', 'category:read', 'read-only tool');
  if (tool.riskLevel === 'LOW') return decide('allow', 'risk:LOW', 'LOW-risk tool');
  skip('category:read');
  // 9. The tool says this call needs no approval.
  if (tool.needsApproval) {
    const parsed = tool.parameters.safeParse(call.arguments);
    if (
      parsed.success &&
      // A JavaScript tool may return undefined or a truthy non-boolean: only `false` skips approval.
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-boolean-literal-compare -- untyped callers
      tool.needsApproval({ arguments: parsed.data, mode: options.mode, channel: context.scope.channel }) === false
    ) {
      return decide('allow', 'tool:needs-approval', 'the tool says this call needs no approval');
    }
  }
  skip('tool:needs-approval');
  // 10. autoEdit runs writes.
  if (options.mode === 'autoEdit' && tool.category === 'write')
    return decide('allow', 'mode:autoEdit', 'autoEdit mode runs writes');
  skip('mode:autoEdit');
  // 11. Whitelists and allow rules.
  if (context.autoApprovedTools.includes(tool.name))
    return decide('allow', 'whitelist:workflow', 'in toolApproval.autoApprovedTools');
  if (options.approvalTools.includes(tool.name))
    return decide('allow', 'whitelist:session', 'in the session approvalTools');
  const ruleVariables = { tool: tool.name, args: call.arguments, category: tool.category, risk: tool.riskLevel };
  for (const [index, expression] of options.allowRules.entries()) {
    if (matches(expression, ruleVariables))
      return decide('allow', `allow-rule:${index}`, `allow rule \`${expression}\` matches`);
  }
  skip('whitelists');
  // 12. Remembered for this session (MEDIUM only).
  if (
    tool.riskLevel === 'MEDIUM' &&
    (context.memory.known ?? context.memory.has(SessionMemory.key(context.scope, tool, call.arguments), context.now))
  ) {
    return decide('allow', 'memory:session', 'the same call was approved earlier in this session');
  }
  skip('memory:session');
  return undefined;
}

function classifyShell(
  tool: Tool,
  call: ApprovalCall,
  classifier: ShellClassifierPort,
): ReturnType<ShellClassifierPort['classify']> {
  const parsed = tool.parameters.safeParse(call.arguments);
  if (!parsed.success || !tool.shellCommand) {
    return { verdict: 'ask', rule: 'shell:invalid-arguments', reasons: ['the arguments do not match the tool schema'] };
  }
  return classifier.classify(tool.shellCommand(parsed.data));
}

/**
 * Whether a rule matches (true), does not (false), or could not be evaluated (the reason).
 * A field the arguments do not have (`args.path` of a shell call) means the rule is about
 * another tool: it does not match.
 */
function evaluateRule(expression: string, variables: Record<string, unknown>): boolean | string {
  try {
    return evaluateExpression(expression, variables) === true;
  } catch (error) {
    if ((error as { cause?: { code?: unknown } }).cause?.code === 'no_such_key') return false;
    return error instanceof Error ? error.message : String(error);
  }
}

/** The paths a file tool's call would write (none for other tools, or arguments that do not fit). */
function writtenPaths(tool: Tool, call: ApprovalCall): string[] {
  if (!tool.writesPaths) return [];
  const parsed = tool.parameters.safeParse(call.arguments);
  return parsed.success ? tool.writesPaths(parsed.data) : [];
}

/** Why a path given to a file tool leaves the workspace as written, or undefined (where it really leads is checked apart). */
function outsideWorkspace(path: string): string | undefined {
  if (path.includes('\0')) return 'contains a NUL character';
  if (isAbsolute(path) || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith('~')) return 'is absolute';
  const depth = normalize(path)
    .split(/[\\/]/)
    .filter((segment) => segment !== '' && segment !== '.');
  if (depth[0] === '..') return 'leaves the workspace';
  return undefined;
}

/** Why a path that reads as inside the workspace really leaves it, or undefined. */
function leavesWorkspace(write: WorkspaceWrite | undefined): string | undefined {
  if (write?.leaves === undefined) return undefined;
  if (write.leaves.problem !== undefined) return `cannot be resolved: ${write.leaves.problem}`;
  return `reaches ${write.leaves.absolute}${write.throughLink ? ' through a symlink' : ''}, outside the workspace`;
}

/** An allow rule that fails to evaluate does not match. */
function matches(expression: string, variables: Record<string, unknown>): boolean {
  return evaluateRule(expression, variables) === true;
}
