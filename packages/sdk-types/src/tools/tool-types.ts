import { z } from 'zod';

/** What a tool does; `ask` tools always need a person (F23). */
export const ToolCategory = z.enum(['read', 'write', 'command', 'network', 'ask']);
export type ToolCategory = z.infer<typeof ToolCategory>;

const RISK_ALIASES: Readonly<Record<string, 'LOW' | 'MEDIUM' | 'HIGH'>> = {
  PUBLIC: 'LOW',
  MODERATE: 'MEDIUM',
  SENSITIVE: 'HIGH',
};

/**
 * LOW never asks, MEDIUM asks once and remembers, HIGH asks every time (F12). Read in any
 * case, with seed 001's names as aliases: `low`, `Moderate` (MEDIUM), `sensitive` (HIGH), `public` (LOW).
 */
export const RiskLevel = z.preprocess(
  (value) => {
    if (typeof value !== 'string') return value;
    const upper = value.trim().toUpperCase();
    return RISK_ALIASES[upper] ?? upper;
  },
  z.enum(['LOW', 'MEDIUM', 'HIGH'], {
    error: (issue) =>
      `a risk level is LOW, MEDIUM or HIGH (or public, moderate, sensitive), not ${JSON.stringify(issue.input)}`,
  }),
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
