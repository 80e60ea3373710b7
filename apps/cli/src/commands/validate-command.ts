import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createCliInterlock } from '../composition-root.js';
import { describeLoadError } from '../describe-load-error.js';
import { ExitCode } from '../exit-code.js';
import { VALIDATE_HELP } from '../help-text.js';
import { colourWanted, createTerminalStyle } from '../terminal-style.js';
import { UsageError } from '../usage-error.js';
import { withUsageErrors } from './with-usage-errors.js';

/**
 * `interlock validate <workflow.toml|json> [--tool NAME]…`: prints `valid`, or every error
 * with its path. The tools a workflow names must be the CLI's built-ins (or the project
 * file's) or be named with `--tool`: tools a team's service registers with `createWorker`,
 * which the CLI does not hold.
 *
 * @returns 0 when valid, 1 when invalid or unreadable.
 * @throws UsageError for a wrong command line.
 */
export async function validateCommand(argv: string[]): Promise<ExitCode> {
  const { values, positionals } = withUsageErrors('validate', () =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      options: { tool: { type: 'string', multiple: true }, help: { type: 'boolean', short: 'h' } },
    }),
  );
  if (values.help) {
    process.stdout.write(VALIDATE_HELP);
    return ExitCode.completed;
  }
  const [path, ...extra] = positionals;
  if (path === undefined)
    throw new UsageError(
      'interlock validate needs a workflow file: interlock validate <workflow.toml|json>',
      'validate',
    );
  if (extra.length > 0)
    throw new UsageError(`interlock validate takes one workflow file, not also ${extra.join(' ')}`, 'validate');
  // Checking a file runs none of its MCP servers' commands: their tools' names are taken on trust.
  const serviceTools = values.tool ?? [];
  const interlock = await createCliInterlock({ mcpServers: false, serviceTools });
  try {
    const workflow = await interlock.loadWorkflow(resolve(path));
    const style = createTerminalStyle(colourWanted(process.stdout));
    process.stdout.write(
      `${style.green('valid')}${style.dim(`: ${path} (workflow "${workflow.id}" version ${workflow.version}, ${workflow.nodes.length} nodes)`)}\n`,
    );
    return ExitCode.completed;
  } catch (error) {
    const style = createTerminalStyle(colourWanted(process.stderr));
    const described = describeLoadError(path, error);
    process.stderr.write(`${style.red(described)}\n`);
    if (/no tool "[^"]+" is registered/.test(described))
      process.stderr.write(
        `${style.dim('A tool your service registers (createWorker({ tools })) is not one the CLI holds: name it with --tool NAME.')}\n`,
      );
    return ExitCode.failed;
  } finally {
    await interlock.close();
  }
}
