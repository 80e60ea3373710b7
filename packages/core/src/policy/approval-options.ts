import { Duration, QuorumConfig, type QuorumConfigInput } from '@interlock/sdk-types';
import { z } from 'zod';
import { InterlockError } from '../errors/interlock-error.js';
import { evaluateExpression } from '../expressions/expressions.js';

export type ApprovalMode = 'default' | 'autoEdit' | 'yolo';

/** What `onToolApprove` is given (seed 002's `toolUse`). */
export interface ToolUse {
  toolName: string;
  arguments: Record<string, unknown>;
  category: string;
  riskLevel: string;
  rule: string;
  threadId: string;
  sessionId: string;
  channel: string;
  /** The chat the thread belongs to, when it runs in one (F27): what the channel's handler gets in `session.chatId`. */
  chatId?: string;
  /** The thread that started this one (a sub-agent's, F27): what the channel's handler gets in `session.parentThreadId`. */
  parentThreadId?: string;
}

/** `true`/`false`, or a decision with edited params or a reason (F26). */
export type ToolApproveResult = boolean | { approved: boolean; params?: Record<string, unknown>; denyReason?: string };

/** How tool calls are decided (F22–F30, F48). Every field is optional. */
export interface ApprovalOptions {
  /** `false` allows every call without asking (step 1). Default true. */
  enabled?: boolean;
  /** default: reads run, the rest asks; autoEdit: writes run too; yolo: everything but `ask` tools and risky shell runs. */
  mode?: ApprovalMode;
  /** Every call of a tool that is not LOW risk asks, whatever the mode or whitelists (removes steps 8–12). */
  strictMode?: boolean;
  /** Per tool: true → always ask, false → never ask, "deny" → never run (step 5). */
  toolOverrides?: Record<string, boolean | 'deny'>;
  /** CEL expressions over `tool`, `args`, `category`, `risk`; a match denies (step 3). */
  denyRules?: string[];
  /** CEL expressions over `tool`, `args`, `category`, `risk`; a match allows (step 11). Shell commands must also be provably safe. */
  allowRules?: string[];
  /** Tools this session runs without asking (step 11). */
  approvalTools?: string[];
  /** How long "remember for this session" lasts for MEDIUM risk: milliseconds or `"5m"`, from 1 ms to 24 h. Default 300 s. */
  memoryWindow?: number | string;
  /**
   * Which approvals of MEDIUM-risk calls are remembered for the window: `automatic` (seed
   * 003, the default) remembers every one — the same call with the same arguments in the
   * same channel and chat runs without asking again; `explicit` only those answered with
   * `remember: true`.
   */
  sessionMemory?: 'automatic' | 'explicit';
  /** Called when the pipeline did not decide, before any channel handler (F26). Not for calls that need a quorum. */
  onToolApprove?: (toolUse: ToolUse) => ToolApproveResult | Promise<ToolApproveResult>;
  /**
   * N-of-M approvals (F51): calls at or above `minRisk` (default HIGH) run only once `required`
   * (default 2) different people approved the same arguments; with a workflow's own
   * `toolApproval.quorum`, the stricter of both. `escalation: { after, approvers }` offers a
   * call that still waits after `after` to a second list of approvers.
   */
  quorum?: QuorumConfigInput;
}

export interface ResolvedApprovalOptions {
  enabled: boolean;
  mode: ApprovalMode;
  strictMode: boolean;
  toolOverrides: Readonly<Record<string, boolean | 'deny'>>;
  denyRules: readonly string[];
  allowRules: readonly string[];
  approvalTools: readonly string[];
  memoryWindow: number;
  sessionMemory: 'automatic' | 'explicit';
  onToolApprove?: ApprovalOptions['onToolApprove'];
  quorum?: QuorumConfig;
}

/** The longest "remember for this session": a day. */
export const MAX_MEMORY_WINDOW_MS = 86_400_000;

/** Keys no option object may have: they would reach an object's prototype. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

const toolNames = z
  .array(z.string().min(1))
  .refine((names) => !names.some((name) => PROTOTYPE_KEYS.has(name)), 'names a prototype key');

const ApprovalOptionsSchema = z.strictObject({
  enabled: z.boolean().optional(),
  mode: z.enum(['default', 'autoEdit', 'yolo']).optional(),
  strictMode: z.boolean().optional(),
  toolOverrides: z
    .record(z.string(), z.union([z.boolean(), z.literal('deny')]))
    .refine((overrides) => !Object.keys(overrides).some((name) => PROTOTYPE_KEYS.has(name)), 'names a prototype key')
    .optional(),
  denyRules: z.array(z.string()).optional(),
  allowRules: z.array(z.string()).optional(),
  approvalTools: toolNames.optional(),
  memoryWindow: Duration.refine(
    (ms) => ms > 0 && ms <= MAX_MEMORY_WINDOW_MS,
    'must be more than 0 and at most 24h',
  ).optional(),
  sessionMemory: z.enum(['automatic', 'explicit']).optional(),
  onToolApprove: z
    .custom<NonNullable<ApprovalOptions['onToolApprove']>>((value) => typeof value === 'function', 'must be a function')
    .optional(),
  quorum: QuorumConfig.optional(),
});

/**
 * Checks and resolves approval options (issue 13): every field's type and range (a
 * `memoryWindow` of NaN, Infinity, 1e308 or "5 minutes" is refused), no unknown keys, no
 * prototype keys, tools that exist (`toolOverrides`, `approvalTools`; pass `toolExists`), and
 * no allow rule that allows every call.
 *
 * @throws InterlockError INVALID_OPTIONS listing every problem with its path.
 */
export function resolveApprovalOptions(
  options: ApprovalOptions = {},
  toolExists?: (name: string) => string | true,
): ResolvedApprovalOptions {
  const parsed = ApprovalOptionsSchema.safeParse(options);
  const problems = parsed.success
    ? []
    : parsed.error.issues.map((issue) => `approval.${issue.path.join('.') || '(root)'}: ${issue.message}`);
  // Own keys of the input (a parsed record may drop `__proto__`).
  for (const name of Object.keys((options as { toolOverrides?: object }).toolOverrides ?? {})) {
    if (PROTOTYPE_KEYS.has(name)) problems.push(`approval.toolOverrides.${name}: a prototype key cannot name a tool`);
  }
  if (parsed.success && toolExists) {
    for (const name of Object.keys(parsed.data.toolOverrides ?? {})) {
      const found = toolExists(name);
      if (found !== true) problems.push(`approval.toolOverrides.${name}: ${found}`);
    }
    for (const [index, name] of (parsed.data.approvalTools ?? []).entries()) {
      const found = toolExists(name);
      if (found !== true) problems.push(`approval.approvalTools[${index}] "${name}": ${found}`);
    }
  }
  if (parsed.success) {
    for (const [index, rule] of (parsed.data.allowRules ?? []).entries()) {
      if (allowsEverything(rule))
        problems.push(
          `approval.allowRules[${index}] \`${rule}\` allows every call: write a rule about specific tools and arguments`,
        );
    }
  }
  if (!parsed.success || problems.length > 0) {
    throw new InterlockError('INVALID_OPTIONS', `the approval options are invalid: ${problems.join('; ')}`, {
      details: { problems },
    });
  }
  const data = parsed.data;
  return {
    enabled: data.enabled ?? true,
    mode: data.mode ?? 'default',
    strictMode: data.strictMode ?? false,
    toolOverrides: { ...data.toolOverrides },
    denyRules: data.denyRules ?? [],
    allowRules: data.allowRules ?? [],
    approvalTools: data.approvalTools ?? [],
    memoryWindow: data.memoryWindow ?? 300_000,
    sessionMemory: data.sessionMemory ?? 'automatic',
    ...(data.onToolApprove === undefined ? {} : { onToolApprove: data.onToolApprove }),
    ...(data.quorum === undefined ? {} : { quorum: data.quorum }),
  };
}

/** Calls as unlike each other as can be: a rule true for all of them does not look at the call. */
const PROBES = [
  { tool: 'bash', args: { command: 'rm -rf / --no-preserve-root' }, category: 'command', risk: 'HIGH' },
  { tool: 'write_file', args: { path: '/etc/passwd', content: '' }, category: 'write', risk: 'MEDIUM' },
  { tool: 'zz-unknown', args: {}, category: 'network', risk: 'LOW' },
];

function allowsEverything(rule: string): boolean {
  return PROBES.every((variables) => {
    try {
      return evaluateExpression(rule, variables) === true;
    } catch {
      return false;
    }
  });
}
