import { parseArgs } from 'node:util';
import { createDemoModel } from '../demo-model.js';
import { ExitCode } from '../exit-code.js';
import { RUN_HELP } from '../help-text.js';
import { parseInputAssignments } from '../parse-input-assignments.js';
import { runWorkflow } from '../run-workflow.js';
import { UsageError } from '../usage-error.js';
import { withUsageErrors } from './with-usage-errors.js';

/**
 * `interlock run <workflow.toml|json> [--input key=value ...] [--json]`.
 *
 * @returns the process's exit code.
 * @throws UsageError for a wrong command line.
 */
export async function runCommand(argv: string[]): Promise<ExitCode> {
  const { values, positionals } = withUsageErrors('run', () =>
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
    process.stdout.write(RUN_HELP);
    return ExitCode.completed;
  }
  const [workflowPath, ...extra] = positionals;
  if (workflowPath === undefined) throw new UsageError('interlock run needs a workflow file: interlock run <workflow.toml|json>', 'run');
  if (extra.length > 0) throw new UsageError(`interlock run takes one workflow file, not also ${extra.join(' ')}`, 'run');
  return runWorkflow({
    workflowPath,
    input: parseInputAssignments(values.input ?? []),
    json: values.json ?? false,
    model: createDemoModel(),
    command: 'run',
  });
}
