import type { ToolCallStatus } from '@interlock/sdk-types';
import { InterlockError } from '../errors/interlock-error.js';
import { stringify } from '../expressions/expressions.js';

/**
 * What the model is told about a call (F14, F19): the status first, then the result or a
 * short explanation that says what happened and that a plain retry will not help.
 */
export function toolMessage(status: ToolCallStatus, detail: unknown): string {
  switch (status) {
    case 'SUCCESS':
      return `[SUCCESS] ${stringify(detail)}`;
    case 'ERROR':
      return `[ERROR] ${stringify(detail)}`;
    case 'EXECUTION_REJECTED':
      return `[EXECUTION_REJECTED] This call was not run: ${stringify(detail)}. Do not retry it unchanged; change your approach or ask the user.`;
    case 'RESULT_REJECTED':
      return `[RESULT_REJECTED] The call ran, but the user withheld its result${detail ? `: ${stringify(detail)}` : ''}. Do not retry it unchanged.`;
    case 'NOT_FOUND':
      return `[NOT_FOUND] ${stringify(detail)}`;
    case 'TIMEOUT':
      // The tool itself ran out of time (an MCP server that hangs), or nobody approved the call in time.
      if (detail instanceof InterlockError && detail.code === 'TOOL_TIMEOUT')
        return `[TIMEOUT] ${detail.message}. Check whether it took effect before you call it again.`;
      return `[TIMEOUT] Nobody approved this call in time, so it was not run. Do not retry it unchanged; ask the user.`;
  }
}
