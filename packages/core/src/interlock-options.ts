import { homedir } from 'node:os';
import type { Container } from 'inversify';
import type { IUserInteractionHandler } from '@interlock/sdk-types';
import type { LoadedProjectConfig } from './config/project-config.js';
import type { Clock } from './engine/clock.js';
import { DEFAULT_LEASE_MS } from './engine/thread-claims.js';
import { InterlockError } from './errors/interlock-error.js';
import { checkExpression } from './expressions/expressions.js';
import type { ModelProvider } from './llm/model-provider.js';
import type { McpServerOptions } from './mcp/mcp-client.js';
import { isToolOfServers } from './mcp/servers-to-start.js';
import type { StoreOptions } from './persistence/open-store.js';
import type { ReceiptOptions } from './receipts/receipt-options.js';
import type { ApprovalOptions } from './policy/approval-options.js';
import type { ShellClassifierPort } from './policy/decide-approval.js';
import { createShellClassifier, type ShellPolicyOptions } from './policy/shell/index.js';
import type { Tool } from './tools/define-tool.js';
import type { ToolRegistry } from './tools/tool-registry.js';
import type { ContinueIn } from './workers/job-planner.js';

/** What `createInterlock` takes; every field is optional. */
export interface InterlockOptions {
  /**
   * A project file (`interlock.toml`, see docs/configuration.md), by path or as loaded by
   * `loadProjectConfig`: its store, models, tools, workspace and approval settings apply
   * where these options leave them out; approval options here are a later layer that may
   * add rules but never loosen the file's denies.
   */
  config?: string | LoadedProjectConfig;
  /** Default `{ type: 'memory' }`. */
  store?: StoreOptions;
  /** Models by name; LLM nodes name one (`model = "default"` when omitted). */
  models?: Record<string, ModelProvider>;
  /** The app's handler per channel. A thread whose channel has none waits durably for `respond()`. */
  handlers?: Record<string, IUserInteractionHandler>;
  /** Tools LLM and TOOL nodes may call (see `defineTool` and `builtinTools`). */
  tools?: Tool[];
  /**
   * MCP servers whose tools are offered as `mcp__<server>__<tool>` (issue 17), besides the
   * project file's `[mcp.servers]`. They are connected and listed when the Interlock is
   * created, and closed with it.
   */
  mcpServers?: McpServerOptions[];
  /**
   * Which MCP servers to start: true (the default) all, false none (a process that only reads
   * the store or checks a file), or a list of server names (`interlock explain` of one
   * server's tool). The tools of a declared server left alone are accepted by name where a
   * name is checked (rules, overrides, workflows), without being checked.
   */
  connectMcp?: boolean | readonly string[];
  /**
   * Tools made on first use from their name, for names `tools` does not have (Interlock's own
   * MCP server decides about an agent's tools this way). Advanced.
   */
  toolFallback?: (name: string) => Tool | undefined;
  /** How tool calls are decided: mode, overrides, rules, callback (F22–F30). */
  approval?: ApprovalOptions;
  /** The directory file and shell tools are confined to. Default: the current directory. */
  workspaceRoot?: string;
  /** Lists and limits of the built-in shell rules (F25): extra safe programs, extra banned or high-risk rules. */
  shell?: ShellPolicyOptions;
  /** Replaces the built-in shell rules altogether (tests, or another classifier). */
  shellClassifier?: ShellClassifierPort;
  /** Time source, for tests. */
  clock?: Clock;
  /**
   * How long (ms) a process's claim on a thread it takes forward lasts without renewal
   * (default 15 s; renewed every third of it while the run works). Answers given in another
   * process meanwhile are picked up by this one; if it dies or freezes, other processes may
   * claim the thread after this long, and its own writes are refused from then on.
   */
  leaseMs?: number;
  /**
   * Where a thread goes on after an answer (issue 12). `this-process` (the default): the
   * process that answers takes it forward. `workers`: answering stores the answer and a
   * job that continues the thread in a worker serving its workflow (`createWorker`), and
   * deadlines become jobs too, so they fire whichever process is alive. `workers-only`:
   * this process runs no thread at all — `start()` and `resume()` hand the thread to a
   * worker; the web inbox and chat of a deployment, which hold none of the tools, answer
   * this way.
   */
  continueIn?: ContinueIn;
  /**
   * How often (ms) this instance anchors the audit log: seals the entries stored since the
   * last anchor, so entries removed, added or changed before it are found by verification
   * (docs/persistence.md). Default 60 000; 0 never (another process may).
   */
  auditAnchorMs?: number;
  /**
   * Approval receipts (F63): each call that runs on an approval gets a signed receipt its
   * service can check (`ToolContext.receipt`). On by default; the key comes from
   * `INTERLOCK_RECEIPT_KEY` or is generated in the store.
   */
  receipts?: ReceiptOptions;
  /** Time out, at start, the interactions whose deadline passed while no process ran. Default true. */
  recoverOnStart?: boolean;
  /** Last chance to rebind services, e.g. `container.rebind(TYPES.X)`. Advanced. */
  configureContainer?: (container: Container) => void;
}

/** `leaseMs`, checked: at least 100 ms. */
export function leaseMsOf(leaseMs: number | undefined): number {
  if (leaseMs === undefined) return DEFAULT_LEASE_MS;
  if (!Number.isFinite(leaseMs) || leaseMs < 100) {
    throw new InterlockError(
      'INVALID_OPTIONS',
      `leaseMs must be a number of milliseconds of at least 100, not ${String(leaseMs)}`,
    );
  }
  return leaseMs;
}

/** True, or why `name` names no tool (with the one it probably meant). A tool of a server not started is taken on trust. */
export function toolNamed(tools: ToolRegistry, name: string, serversNotStarted: readonly string[] = []): string | true {
  if (tools.find(name) || isToolOfServers(name, serversNotStarted)) return true;
  const near = tools.names().find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  return `no tool is named "${name}"${near ? ` (did you mean "${near}"?)` : ''}: tool names are exact`;
}

/** Refuses a deny or allow rule that is not a valid expression over `tool`, `args`, `category`, `risk`. */
export function checkRules(rules: readonly string[], name: string): void {
  rules.forEach((rule, index) => {
    const problem = checkExpression(rule, ['tool', 'args', 'category', 'risk']);
    if (problem)
      throw new InterlockError(
        'INVALID_OPTIONS',
        `approval.${name}[${index}] \`${rule}\` is not a valid rule: ${problem}`,
      );
  });
}

/** The tree-sitter shell rules, told where commands run and where home is. */
export async function builtinShellRules(
  options: ShellPolicyOptions | undefined,
  workspaceRoot: string,
): Promise<ShellClassifierPort> {
  const classifier = await createShellClassifier(options).catch((error: unknown) => {
    throw new InterlockError(
      'INVALID_OPTIONS',
      `the shell options are invalid: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  });
  const context = { cwd: workspaceRoot, homeDirectory: homedir(), workspaceRoot };
  return { classify: (command) => classifier.classify(command, context) };
}
