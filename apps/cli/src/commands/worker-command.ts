import { parseArgs } from 'node:util';
import { builtinTools, createWorker } from '@interlock/core';
import { startTelemetry, telemetryOptionsOf } from '@interlock/telemetry';
import { parseApprovalMode } from '../approval-mode-option.js';
import { projectConfig, projectWorkflowFiles } from '../project-config-option.js';
import { ExitCode } from '../exit-code.js';
import { WORKER_HELP } from '../help-text.js';
import { createModel } from '../model-option.js';
import { parseStoreOption } from '../store-option.js';
import { colourWanted, createTerminalStyle } from '../terminal-style.js';
import { UsageError } from '../usage-error.js';
import { resolveWorkspace } from '../workspace-option.js';
import { withUsageErrors } from './with-usage-errors.js';

/**
 * `interlock worker <workflow.toml|json>… [--store SPEC] [--model …] [--mode …] [--workspace DIR] [--concurrency N] [--health-port N]`:
 * takes forward the threads of these workflows, with the built-in tools, after answers
 * given anywhere (issue 12); times out their questions at their deadlines and takes over
 * threads whose process died. With `--health-port`, answers `/healthz` and `/readyz` there
 * (F60). Runs until Ctrl+C or SIGTERM, then lets the threads under
 * way stop and exits 0.
 *
 * @throws UsageError for a wrong command line.
 */
export async function workerCommand(argv: string[]): Promise<ExitCode> {
  const { values, positionals } = withUsageErrors('worker', () =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        store: { type: 'string' },
        model: { type: 'string' },
        'base-url': { type: 'string' },
        mode: { type: 'string' },
        workspace: { type: 'string' },
        concurrency: { type: 'string' },
        'health-port': { type: 'string' },
        'health-host': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }),
  );
  if (values.help) {
    process.stdout.write(WORKER_HELP);
    return ExitCode.completed;
  }
  const files = positionals.length > 0 ? positionals : await projectWorkflowFiles();
  if (files.length === 0)
    throw new UsageError(
      'interlock worker needs the workflow files it serves: interlock worker <workflow.toml>…, or workflows = [...] in interlock.toml',
      'worker',
    );
  const concurrency = values.concurrency === undefined ? 4 : Number(values.concurrency);
  if (!Number.isSafeInteger(concurrency) || concurrency < 1 || concurrency > 1_000) {
    throw new UsageError(
      `--concurrency ${JSON.stringify(values.concurrency)} is not a number of threads from 1 to 1000`,
      'worker',
    );
  }
  const healthPort = values['health-port'] === undefined ? undefined : Number(values['health-port']);
  if (healthPort !== undefined && (!Number.isInteger(healthPort) || healthPort < 0 || healthPort > 65_535))
    throw new UsageError(`--health-port ${JSON.stringify(values['health-port'])} is not a port number`, 'worker');
  const store = parseStoreOption(values.store, 'worker');
  if (store.options.type !== 'sqlite' && store.options.type !== 'postgres') {
    throw new UsageError(
      `a worker needs a store other processes share: --store sqlite:<path> or postgres://…, not ${store.label}`,
      'worker',
    );
  }
  const model = createModel(
    {
      ...(values.model === undefined ? {} : { model: values.model }),
      ...(values['base-url'] === undefined ? {} : { baseUrl: values['base-url'] }),
    },
    'worker',
  );
  const project = projectConfig();
  // [telemetry]: traces and metrics over OTLP/HTTP (F59), set up before the worker's Interlock.
  const telemetryConfig = project?.config.telemetry;
  const telemetry =
    telemetryConfig === undefined ? undefined : startTelemetry(telemetryOptionsOf(telemetryConfig, 'interlock-worker'));
  const worker = await createWorker({
    // The project file's rules, tools and workspace; the flags are a later layer.
    ...(project === undefined ? {} : { config: project }),
    store: store.options,
    workflows: files,
    ...(project === undefined ? { tools: builtinTools } : {}),
    models: { default: model },
    approval: { mode: parseApprovalMode(values.mode, 'worker') },
    workspaceRoot: await resolveWorkspace(values.workspace, 'worker'),
    concurrency,
    ...(healthPort === undefined ? {} : { healthPort }),
    ...(values['health-host'] === undefined ? {} : { healthHost: values['health-host'] }),
  });
  const style = createTerminalStyle(colourWanted(process.stdout));
  worker.interlock.events$.subscribe((event) => {
    if (event.type === 'THREAD_RESUMED')
      process.stdout.write(`${style.dim(`thread ${event.threadId}: taken forward`)}\n`);
    else if (event.type === 'THREAD_COMPLETED')
      process.stdout.write(`${style.green(`thread ${event.threadId}: completed`)}\n`);
    else if (event.type === 'THREAD_FAILED')
      process.stdout.write(`${style.red(`thread ${event.threadId}: failed: ${event.error.code}`)}\n`);
    else if (event.type === 'THREAD_SUSPENDED')
      process.stdout.write(`${style.dim(`thread ${event.threadId}: waits for a person`)}\n`);
  });
  // Listening before saying ready: a supervisor may stop it the moment it reads the line.
  const stopAsked = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  if (worker.healthUrl !== undefined)
    process.stdout.write(`Health: ${worker.healthUrl}/healthz and ${worker.healthUrl}/readyz\n`);
  process.stdout.write(
    `Worker ready: serving ${worker.workflowIds.join(', ')} on ${store.label}, ${concurrency} at a time. Ctrl+C stops it.\n`,
  );
  await stopAsked;
  process.stdout.write('Stopping: the threads under way stop at their next wait…\n');
  await worker.stop();
  await telemetry?.shutdown();
  return ExitCode.completed;
}
