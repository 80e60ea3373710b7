import type { LoadedProjectConfig } from '../config/project-config.js';
import type { ApprovalMode } from '../policy/approval-options.js';
import { createWorker, type InterlockWorker, type WorkerOptions } from '../workers/worker.js';
import { agentTool } from './agent-tools.js';
import { approvalServerWorkflows, holdUntilAnsweredElsewhere, MCP_CHANNEL } from './approval-server.js';

/** What {@link createApprovalService} needs. */
export interface ApprovalServiceOptions {
  /** Where questions wait for people (SQLite or PostgreSQL: the web inbox and `interlock respond` read it). */
  store: WorkerOptions['store'];
  /** The project file: its rules, mode, shell lists and approvers decide. Its MCP servers are never started. */
  config?: string | LoadedProjectConfig;
  /** A later layer than the file's mode (`--mode`). */
  mode?: ApprovalMode;
  /** The directory the agent works in: its file writes are decided against it (absolute paths inside it, symlinks resolved). */
  workspaceRoot: string;
  /** How long a person has to answer (ms); default: no deadline, the agent's own wait decides. */
  answerTimeoutMs?: number;
}

/**
 * The worker behind `interlock mcp serve` (issue 24): an approval service decides, it never
 * runs anything. It holds no tool of its own and starts none of the project file's MCP
 * servers, so every name an agent asks about — `Bash`, `Write`, or a name that collides with
 * a declared server's tool (`mcp__<server>__<tool>`) — is an agent's tool, decided by the
 * rules and handed back as the arguments a person approved; its permission workflow's TOOL
 * node decides only (`decideOnly`), a second wall.
 *
 * Connect {@link createApprovalMcpServer} to `worker.interlock` to serve it.
 */
export function createApprovalService(options: ApprovalServiceOptions): Promise<InterlockWorker> {
  return createWorker({
    ...(options.config === undefined ? {} : { config: options.config }),
    store: options.store,
    workflows: approvalServerWorkflows(
      options.answerTimeoutMs === undefined ? {} : { answerTimeoutMs: options.answerTimeoutMs },
    ),
    tools: [],
    connectMcp: false,
    toolFallback: (name) => agentTool(name, options.workspaceRoot),
    handlers: { [MCP_CHANNEL]: holdUntilAnsweredElsewhere },
    ...(options.mode === undefined ? {} : { approval: { mode: options.mode } }),
    workspaceRoot: options.workspaceRoot,
  });
}
