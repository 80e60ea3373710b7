import { parseArgs } from 'node:util';
import { parseApprovalMode } from '../approval-mode-option.js';
import { projectConfig } from '../project-config-option.js';
import { CLI_CHANNEL, createCliInterlock } from '../composition-root.js';
import { decisionJson, decisionText } from '../decision-text.js';
import { ExitCode } from '../exit-code.js';
import { EXPLAIN_HELP } from '../help-text.js';
import { colourWanted, createTerminalStyle } from '../terminal-style.js';
import { UsageError } from '../usage-error.js';
import { resolveWorkspace } from '../workspace-option.js';
import { withUsageErrors } from './with-usage-errors.js';

/**
 * `interlock explain <tool> '<json args>' [--json] [--mode default|autoEdit|yolo] [--workspace DIR]`: dry-runs
 * the approval pipeline for one call with the built-in tools and prints the decision (allow,
 * ask or deny), the rule that decided, its reason and the path of rules. Nothing runs.
 *
 * @returns 0 for any decision.
 * @throws UsageError for a wrong command line or arguments that are not a JSON object.
 */
export async function explainCommand(argv: string[]): Promise<ExitCode> {
  const { values, positionals } = withUsageErrors('explain', () =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        json: { type: 'boolean' },
        mode: { type: 'string' },
        workspace: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }),
  );
  if (values.help) {
    process.stdout.write(EXPLAIN_HELP);
    return ExitCode.completed;
  }
  const [toolName, argumentsText = '{}', ...extra] = positionals;
  if (toolName === undefined)
    throw new UsageError(`interlock explain needs a tool: interlock explain <tool> '<json args>'`, 'explain');
  if (extra.length > 0)
    throw new UsageError(
      `interlock explain takes a tool and one JSON object, not also ${extra.join(' ')} (quote the JSON)`,
      'explain',
    );
  const parameters = parseArgumentsJson(argumentsText);
  // Only the server whose tool is explained is started, and the user is told (issue 24).
  const servers = serversFor(toolName);
  if (servers.length > 0)
    process.stderr.write(`interlock explain: starting MCP server ${servers.join(', ')} to read ${toolName}\n`);
  const interlock = await createCliInterlock({
    mode: parseApprovalMode(values.mode, 'explain'),
    workspaceRoot: await resolveWorkspace(values.workspace, 'explain'),
    mcpServers: servers,
  });
  try {
    const decision = interlock.explain({ toolName, arguments: parameters }, { channel: CLI_CHANNEL });
    const source = decidedBy(decision.rule, values.mode !== undefined);
    if (values.json)
      process.stdout.write(
        `${JSON.stringify({ ...decisionJson(decision), ...(source === undefined ? {} : { source }) })}\n`,
      );
    else {
      const style = createTerminalStyle(colourWanted(process.stdout));
      process.stdout.write(decisionText(toolName, parameters, decision, style));
      if (source !== undefined) process.stdout.write(`${style.dim(`decided by: ${source}`)}\n`);
    }
    return ExitCode.completed;
  } finally {
    await interlock.close();
  }
}

/**
 * Which layer set the rule that decided, when the project file or a flag did (issue 16):
 * `interlock.toml: approval.denyRules[0]`, `--mode`, or the built-in rules (undefined).
 */
function decidedBy(rule: string, modeFlag: boolean): string | undefined {
  const project = projectConfig();
  const approval = project?.config.approval;
  if (rule.startsWith('mode:')) {
    if (modeFlag) return '--mode';
    return project !== undefined && approval?.mode !== undefined ? `${project.path}: approval.mode` : undefined;
  }
  if (project === undefined || approval === undefined) return undefined;
  const numbered = /^(deny|allow)-rule:(\d+)/.exec(rule);
  if (numbered) {
    const key = numbered[1] === 'deny' ? 'denyRules' : 'allowRules';
    const index = Number(numbered[2]);
    return index < (approval[key]?.length ?? 0) ? `${project.path}: approval.${key}[${index}]` : undefined;
  }
  const override = /^override:(.+)$/.exec(rule)?.[1];
  if (override !== undefined && approval.toolOverrides?.[override] !== undefined)
    return `${project.path}: approval.toolOverrides.${override}`;
  const shellRule = /^shell:(banned|high-risk):(.+)$/.exec(rule);
  if (shellRule) {
    const list = shellRule[1] === 'banned' ? approval.shell?.extraBanned : approval.shell?.extraHighRisk;
    const index = list?.findIndex((entry) => entry.id === shellRule[2]) ?? -1;
    if (index >= 0)
      return `${project.path}: approval.shell.${shellRule[1] === 'banned' ? 'extraBanned' : 'extraHighRisk'}[${index}]`;
  }
  if (rule === 'whitelist:session') return `${project.path}: approval.approvalTools`;
  return undefined;
}

/** The project file's MCP server that offers `toolName` (`mcp__<server>__<tool>`), if any. */
function serversFor(toolName: string): string[] {
  const declared = Object.keys(projectConfig()?.config.mcp?.servers ?? {});
  return declared.filter((server) => toolName.startsWith(`mcp__${server}__`));
}

function parseArgumentsJson(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new UsageError(
      `interlock explain: the arguments are not valid JSON (${reason}): give one JSON object, e.g. '{"command":"ls"}'`,
      'explain',
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(
      `interlock explain: the arguments must be a JSON object, e.g. '{"path":"README.md"}'`,
      'explain',
    );
  }
  return { ...value };
}
