import type { z } from 'zod';
import { InterlockError } from '../errors/interlock-error.js';

/** One problem in a workflow file, at a path such as `nodes[3].config.variables[0].scope`. */
export interface WorkflowIssue {
  path: string;
  message: string;
}

export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text === '' ? String(segment) : `.${String(segment)}`;
  }
  return text || '(root)';
}

export function issuesFromZod(error: z.ZodError): WorkflowIssue[] {
  return error.issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message }));
}

export function workflowInvalid(source: string, found: WorkflowIssue[]): InterlockError {
  // The same problem found twice (two nodes of one id, both unreachable) is listed once.
  const issues = found.filter(
    (issue, index) =>
      found.findIndex((other) => other.path === issue.path && other.message === issue.message) === index,
  );
  const lines = issues.map((issue) => `  ${issue.path}: ${issue.message}`);
  const count = issues.length === 1 ? '1 error' : `${issues.length} errors`;
  return new InterlockError('WORKFLOW_INVALID', `${source} is not a valid workflow (${count}):\n${lines.join('\n')}`, {
    details: { source, issues },
  });
}
