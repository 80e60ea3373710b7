import { resolve as resolvePath } from 'node:path';
import type { IUserInteractionHandler } from '@interlock/sdk-types';
import { z } from 'zod';
import { InterlockError, toInterlockError } from '../errors/interlock-error.js';
import { createInterlock, type Interlock } from '../interlock.js';
import { defineTool } from '../tools/define-tool.js';
import { createWorker, type InterlockWorker } from '../workers/worker.js';
import { ApprovalGate, type ApprovalGateOptions } from './approval-gate.js';
import { GateToolbox, loadJsonSchemaCheck, UNKNOWN_GATE_TOOL } from './gate-tools.js';
import { continuationToolName, DEFAULT_GATE_APPROVAL_TIMEOUT_MS, gateWorkflows } from './gate-workflows.js';

const NAME = /^[A-Za-z0-9_.-]+$/;
/** A workflow's longest duration (sdk-types' Duration): 366 days. */
const LONGEST_TIMEOUT_MS = 366 * 24 * 60 * 60 * 1_000;

/**
 * Builds an {@link ApprovalGate}: an Interlock with the gate's workflows, its tools as
 * Interlock sees them, and — on SQLite or PostgreSQL — a worker, so answers given in any
 * process reach it and a pause left by a process that died is continued here.
 *
 * @throws InterlockError INVALID_OPTIONS for a bad name or options.
 */
export async function createApprovalGate(options: ApprovalGateOptions): Promise<ApprovalGate> {
  const {
    name,
    store = { type: 'memory' },
    tools = {},
    unknownTool = UNKNOWN_GATE_TOOL,
    channel = 'agent',
    continuation,
    onError = reportOnStderr,
    concurrency,
    pollMs,
    watchMs,
    approvalTimeoutMs = DEFAULT_GATE_APPROVAL_TIMEOUT_MS,
    ...interlockOptions
  } = options;
  if (!NAME.test(name))
    throw new InterlockError('INVALID_OPTIONS', `an approval gate's name is letters, digits, _, . or -, not "${name}"`);
  if (!Number.isInteger(approvalTimeoutMs) || approvalTimeoutMs < 0 || approvalTimeoutMs > LONGEST_TIMEOUT_MS)
    throw new InterlockError(
      'INVALID_OPTIONS',
      `approvalTimeoutMs is a whole number of milliseconds from 0 (wait until answered) to 366 days, not ${String(approvalTimeoutMs)}`,
    );
  const check = await loadJsonSchemaCheck();
  const workspaceRoot = resolvePath(options.workspaceRoot ?? process.cwd());
  const toolbox = new GateToolbox(tools, unknownTool, workspaceRoot, check);
  const toolFallback = (toolName: string) => toolbox.tool(toolName);
  const holder: { gate?: ApprovalGate } = {};
  const continueTool = defineTool({
    name: continuationToolName(name),
    description: `Takes the agent of gate "${name}" on once its tool calls are decided`,
    category: 'read',
    riskLevel: 'LOW',
    parameters: z.object({ pauseId: z.string() }),
    execute: async ({ pauseId }, context) => {
      const gate = holder.gate;
      const pause = await gate?.pause(pauseId);
      if (gate === undefined || pause === undefined || continuation === undefined)
        throw new InterlockError('THREAD_NOT_FOUND', `no pause ${pauseId} of gate "${name}"`);
      const result = await continuation(pause, { signal: context.signal, gate });
      return result === undefined ? 'continued' : toJson(result);
    },
  });
  const handler: IUserInteractionHandler = { handle: (request, context) => gateHandler().handle(request, context) };
  const gateHandler = () => (holder.gate as ApprovalGate).handler();
  const common = {
    ...interlockOptions,
    workspaceRoot,
    tools: [continueTool],
    toolFallback,
    handlers: { [channel]: handler },
  };
  let interlock: Interlock;
  let worker: InterlockWorker | undefined;
  if (store.type === 'sqlite' || store.type === 'postgres') {
    worker = await createWorker({
      ...common,
      store,
      workflows: gateWorkflows(name, approvalTimeoutMs),
      ...(concurrency === undefined ? {} : { concurrency }),
      ...(pollMs === undefined ? {} : { pollMs }),
    });
    interlock = worker.interlock;
  } else {
    interlock = await createInterlock({ ...common, store });
    for (const workflow of gateWorkflows(name, approvalTimeoutMs)) interlock.registerWorkflow(workflow);
  }
  const gate = new ApprovalGate(
    interlock,
    name,
    channel,
    toolbox,
    continuation,
    onError,
    worker === undefined ? undefined : () => worker.stop(),
  );
  holder.gate = gate;
  try {
    await gate.begin(watchMs);
  } catch (error) {
    await gate.close();
    throw toInterlockError(error);
  }
  return gate;
}

function toJson(value: unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(value)) as unknown;
  } catch {
    return String(value);
  }
}

function reportOnStderr(error: unknown): void {
  process.stderr.write(
    `interlock approval gate: a paused agent could not be continued (tried again when a gate starts): ${error instanceof Error ? error.message : String(error)}\n`,
  );
}
