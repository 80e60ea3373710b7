import type { ToolApprovalResponse } from '@interlock/sdk-types';
import { makeVisible } from './visible-text.js';

/** The answers to a call whose outcome is unknown, in words. */
const RESOLVED: Record<NonNullable<ToolApprovalResponse['resolution']>, string> = {
  done: 'done: it ran, the thread goes on',
  retry: 'retry: it runs again',
  fail: 'failed: it is reported failed',
};

/**
 * An approval answer in words, for the echo after a question:
 * `approved`, `approved and remembered for this session`, `approved with edited arguments {…}`,
 * `approved, with an instruction for the model: …`, `rejected: not today`.
 */
export function describeResponse(response: ToolApprovalResponse): string {
  const parts: string[] = [
    response.resolution === undefined ? (response.approved ? 'approved' : 'rejected') : RESOLVED[response.resolution],
  ];
  if (response.remember === true) parts.push(' and remembered for this session');
  if (response.editedParameters !== undefined)
    parts.push(` with edited arguments ${makeVisible(JSON.stringify(response.editedParameters))}`);
  if (response.userInstruction !== undefined)
    parts.push(`, with an instruction for the model: ${makeVisible(response.userInstruction)}`);
  if (response.denyReason !== undefined) parts.push(`: ${makeVisible(response.denyReason)}`);
  return parts.join('');
}
