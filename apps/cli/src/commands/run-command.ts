import { parseArgs } from 'node:util';
import { parseApprovalMode } from '../approval-mode-option.js';
import { ExitCode } from '../exit-code.js';
import { RUN_HELP } from '../help-text.js';
import { CLI_CHANNEL, DETACHED_CHANNEL } from '../composition-root.js';
import { createModel } from '../model-option.js';
import { parseInputAssignments } from '../parse-input-assignments.js';
import { runWorkflow } from '../run-workflow.js';
import { parseStoreOption } from '../store-option.js';
import { UsageError } from '../usage-error.js';
import { resolveWorkspace } from '../workspace-option.js';
import { withUsageErrors } from './with-usage-errors.js';

/**
 * `interlock run <workflow.toml|json> [--store SPEC] [--detach | --channel NAME] [--mode default|autoEdit|yolo]
 * [--model scripted|openai:<model>] [--base-url URL] [--workspace DIR] [--input key=value ...] [--json]`.
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
        mode: { type: 'string' },
        model: { type: 'string' },
        'base-url': { type: 'string' },
        workspace: { type: 'string' },
        store: { type: 'string' },
        detach: { type: 'boolean' },
        channel: { type: 'string' },
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
  if (workflowPath === undefined)
    throw new UsageError('interlock run needs a workflow file: interlock run <workflow.toml|json>', 'run');
  if (extra.length > 0)
    throw new UsageError(`interlock run takes one workflow file, not also ${extra.join(' ')}`, 'run');
  // Without --model: the project file's [models.default], else the scripted demo model.
  const modelSpec = {
    ...(values.model === undefined ? {} : { model: values.model }),
    ...(values['base-url'] === undefined ? {} : { baseUrl: values['base-url'] }),
  };
  const model = createModel(modelSpec, 'run');
  return runWorkflow({
    workflowPath,
    input: parseInputAssignments(values.input ?? []),
    json: values.json ?? false,
    model,
    modelSpec,
    store: parseStoreOption(values.store, 'run'),
    channel: channelOf(values.channel, values.detach ?? false),
    mode: parseApprovalMode(values.mode, 'run'),
    workspaceRoot: await resolveWorkspace(values.workspace, 'run'),
    command: 'run',
  });
}

/** `--channel NAME` (default `cli`); `--detach` is `--channel detached`. */
function channelOf(channel: string | undefined, detach: boolean): string {
  if (channel === undefined) return detach ? DETACHED_CHANNEL : CLI_CHANNEL;
  if (!/^[A-Za-z0-9][\w.-]{0,63}$/.test(channel)) {
    throw new UsageError(
      `--channel "${channel}" is not a channel name: use letters, digits, ".", "_" or "-", e.g. --channel web`,
      'run',
    );
  }
  if (detach && channel === CLI_CHANNEL)
    throw new UsageError(
      '--detach and --channel cli contradict each other: --detach runs the thread where nobody here answers',
      'run',
    );
  return channel;
}
