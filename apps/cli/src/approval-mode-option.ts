import type { ApprovalMode } from '@interlock/core';
import { UsageError } from './usage-error.js';

/** The values of `--mode`, in the order the help lists them. */
export const APPROVAL_MODES: readonly ApprovalMode[] = ['default', 'autoEdit', 'yolo'];

/**
 * Reads `--mode`: `default` (reads run, the rest asks), `autoEdit` (writes run too) or
 * `yolo` (everything runs except what the deny and shell rules stop). Default `default`.
 *
 * @throws UsageError for any other value.
 */
export function parseApprovalMode(value: string | undefined, command: string): ApprovalMode {
  if (value === undefined) return 'default';
  const mode = APPROVAL_MODES.find((candidate) => candidate === value);
  if (mode === undefined) throw new UsageError(`--mode ${JSON.stringify(value)} is not a mode: use one of ${APPROVAL_MODES.join(', ')}`, command);
  return mode;
}
