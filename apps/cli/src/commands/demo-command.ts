import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createDemoModel } from '../demo-model.js';
import { ExitCode } from '../exit-code.js';
import { DEMO_HELP } from '../help-text.js';
import { parseInputAssignments } from '../parse-input-assignments.js';
import { runWorkflow } from '../run-workflow.js';
import { UsageError } from '../usage-error.js';
import { withUsageErrors } from './with-usage-errors.js';

/** The demo's workflow, found relative to this file (apps/cli/{src,dist}/commands/ → examples/). */
const DEMO_WORKFLOW = fileURLToPath(new URL('../../../../examples/workflows/plan-approval.toml', import.meta.url));

/**
 * `interlock demo [--input key=value ...] [--json]`: the plan-approval example with the
 * scripted demo model.
 *
 * @returns the process's exit code.
 * @throws UsageError for a wrong command line.
 */
export async function demoCommand(argv: string[]): Promise<ExitCode> {
  const { values, positionals } = withUsageErrors('demo', () =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        input: { type: 'string', short: 'i', multiple: true },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }),
  );
  if (values.help) {
    process.stdout.write(DEMO_HELP);
    return ExitCode.completed;
  }
  if (positionals.length > 0) {
    throw new UsageError(`interlock demo takes no workflow file (got ${positionals.join(' ')}): use interlock run <workflow>`, 'demo');
  }
  return runWorkflow({
    workflowPath: DEMO_WORKFLOW,
    input: parseInputAssignments(values.input ?? []),
    json: values.json ?? false,
    model: createDemoModel(),
    command: 'demo',
  });
}
