import type { Duration } from '@interlock/sdk-types';

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
  /** How long "remember for this session" lasts for MEDIUM risk. Default 300 s. */
  memoryWindow?: Duration;
  /** Called when the pipeline did not decide, before any channel handler (F26). */
  onToolApprove?: (toolUse: ToolUse) => ToolApproveResult | Promise<ToolApproveResult>;
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
  onToolApprove?: ApprovalOptions['onToolApprove'];
}

export function resolveApprovalOptions(options: ApprovalOptions = {}): ResolvedApprovalOptions {
  return {
    enabled: options.enabled ?? true,
    mode: options.mode ?? 'default',
    strictMode: options.strictMode ?? false,
    toolOverrides: options.toolOverrides ?? {},
    denyRules: options.denyRules ?? [],
    allowRules: options.allowRules ?? [],
    approvalTools: options.approvalTools ?? [],
    memoryWindow: options.memoryWindow ?? 300_000,
    ...(options.onToolApprove === undefined ? {} : { onToolApprove: options.onToolApprove }),
  };
}
