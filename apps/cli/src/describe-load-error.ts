import { InterlockError, type WorkflowIssue } from '@interlock/core';

/**
 * Explains why a workflow file could not be loaded: for an invalid workflow, one line per
 * error with its path (`nodes[2].config.prompt: …`); otherwise the error's message.
 */
export function describeLoadError(path: string, error: unknown): string {
  if (!InterlockError.is(error)) return `${path}: ${error instanceof Error ? error.message : String(error)}`;
  const issues = issuesOf(error);
  if (error.code !== 'WORKFLOW_INVALID' || issues.length === 0) return error.message;
  const count = issues.length === 1 ? '1 error' : `${issues.length} errors`;
  return [
    `${path} is not a valid workflow (${count}):`,
    ...issues.map((issue) => `  ${issue.path}: ${issue.message}`),
  ].join('\n');
}

function issuesOf(error: InterlockError): WorkflowIssue[] {
  const issues = error.details['issues'];
  if (!Array.isArray(issues)) return [];
  return issues.filter(
    (issue: unknown): issue is WorkflowIssue =>
      typeof issue === 'object' &&
      issue !== null &&
      'path' in issue &&
      typeof issue.path === 'string' &&
      'message' in issue &&
      typeof issue.message === 'string',
  );
}
