import type { ApprovalMode } from '@interlock/core';
import { projectConfig } from './project-config-option.js';
import { UsageError } from './usage-error.js';

/** The values of `--mode`, in the order the help lists them. */
export const APPROVAL_MODES: readonly ApprovalMode[] = ['default', 'autoEdit', 'yolo'];

/**
 * Reads `--mode`: `default` (reads run, the rest asks), `autoEdit` (writes run too) or
 * `yolo` (everything runs except what the deny and shell rules stop). Default: the project
 * file's `approval.mode`, else `default`.
 *
 * @throws UsageError for any other value.
 */
export function parseApprovalMode(value: string | undefined, command: string): ApprovalMode {
  // Without the flag, the project file's mode (a flag is the later layer).
  if (value === undefined) return projectConfig()?.config.approval?.mode ?? 'default';
  const mode = APPROVAL_MODES.find((candidate) => candidate === value);
  if (mode === undefined)
    throw new UsageError(
      `--mode ${JSON.stringify(value)} is not a mode: use one of ${APPROVAL_MODES.join(', ')}`,
      command,
    );
  return mode;
}
