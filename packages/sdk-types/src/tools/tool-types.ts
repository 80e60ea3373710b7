import { z } from 'zod';

/** What a tool does; `ask` tools always need a person (F23). */
export const ToolCategory = z.enum(['read', 'write', 'command', 'network', 'ask']);
export type ToolCategory = z.infer<typeof ToolCategory>;

const RISK_ALIASES = { PUBLIC: 'LOW', MODERATE: 'MEDIUM', SENSITIVE: 'HIGH' } as const;

/** LOW never asks, MEDIUM asks once and remembers, HIGH asks every time (F12). */
export const RiskLevel = z.preprocess(
  (value) =>
    typeof value === 'string' && value in RISK_ALIASES
      ? RISK_ALIASES[value as keyof typeof RISK_ALIASES]
      : value,
  z.enum(['LOW', 'MEDIUM', 'HIGH']),
);
export type RiskLevel = z.infer<typeof RiskLevel>;

/** How a tool call ended, in events and in the tool message the model receives (F14). */
export const ToolCallStatus = z.enum([
  'SUCCESS',
  'ERROR',
  'EXECUTION_REJECTED',
  'RESULT_REJECTED',
  'NOT_FOUND',
  'TIMEOUT',
]);
export type ToolCallStatus = z.infer<typeof ToolCallStatus>;

/**
 * Which stage of a tool call a person is asked about: before it runs, its result before the
 * model sees it (F13), or a call whose outcome is unknown after a crash (F40).
 */
export const ApprovalStage = z.enum(['execution', 'result', 'recovery']);
export type ApprovalStage = z.infer<typeof ApprovalStage>;
