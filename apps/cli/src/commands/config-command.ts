import { parseArgs } from 'node:util';
import { checkProjectConfigFile, findProjectConfig, type ConfigIssue, type LoadedProjectConfig } from '@interlock/core';
import { ExitCode } from '../exit-code.js';
import { CONFIG_HELP } from '../help-text.js';
import { colourWanted, createTerminalStyle } from '../terminal-style.js';
import { UsageError } from '../usage-error.js';
import { withUsageErrors } from './with-usage-errors.js';

/** Tools that act on the world from a shell or the network: allowing them without a person is worth a warning. */
const REACHING_TOOLS = new Set(['bash', 'http_fetch']);

/** What `interlock config` does: check the project file. */
export const CONFIG_ACTIONS: readonly string[] = ['check'];

/**
 * `interlock config check [FILE]`: reads the project file (the given one, or `interlock.toml`
 * / `interlock.json` here), lists every error with its key, and warns about risky entries.
 *
 * @returns 0 when the file is valid (warnings or not), 1 when it is not.
 */
export async function configCommand(argv: string[]): Promise<ExitCode> {
  const { values, positionals } = withUsageErrors('config', () =>
    parseArgs({ args: argv, allowPositionals: true, options: { help: { type: 'boolean', short: 'h' } } }),
  );
  const [action, path, ...extra] = positionals;
  if (values.help || action === undefined) {
    (values.help ? process.stdout : process.stderr).write(CONFIG_HELP);
    return values.help ? ExitCode.completed : ExitCode.usage;
  }
  if (!CONFIG_ACTIONS.includes(action))
    throw new UsageError(
      `interlock config ${action}: the only action is check (interlock config check [interlock.toml])`,
      'config',
    );
  if (extra.length > 0)
    throw new UsageError(`interlock config check takes one file, not also ${extra.join(' ')}`, 'config');
  const file = path ?? (await findProjectConfig(process.cwd()));
  if (file === undefined)
    throw new UsageError(
      'no interlock.toml or interlock.json here: give the file, interlock config check <file>',
      'config',
    );
  const out = createTerminalStyle(colourWanted(process.stdout));
  const err = createTerminalStyle(colourWanted(process.stderr));
  const result = await checkProjectFile(file);
  for (const warning of result.warnings)
    process.stdout.write(`${out.yellow('warning')} ${warning.path}: ${warning.message}\n`);
  if (result.errors.length > 0) {
    for (const error of result.errors) process.stderr.write(`${err.red('error')} ${error.path}: ${error.message}\n`);
    process.stderr.write(
      `${err.red(`${file}: ${result.errors.length} error${result.errors.length === 1 ? '' : 's'}`)}\n`,
    );
    return ExitCode.failed;
  }
  process.stdout.write(
    `${out.green('valid')}${out.dim(`: ${file}${result.warnings.length === 0 ? '' : `, ${result.warnings.length} warning${result.warnings.length === 1 ? '' : 's'}`}`)}\n`,
  );
  return ExitCode.completed;
}

/**
 * Every error of a project file in one run (its schema, the variables it names, its rules,
 * tools and workflows: `checkProjectConfigFile`) and its risky entries. Nothing is started.
 */
export async function checkProjectFile(path: string): Promise<{ errors: ConfigIssue[]; warnings: ConfigIssue[] }> {
  const { errors, warnings, loaded } = await checkProjectConfigFile(path);
  return { errors, warnings: [...warnings, ...(loaded === undefined ? [] : warningsOf(loaded))] };
}

function warningsOf(loaded: LoadedProjectConfig): ConfigIssue[] {
  const approval = loaded.config.approval ?? {};
  const warnings: ConfigIssue[] = [];
  if (approval.enabled === false)
    warnings.push({
      path: 'approval.enabled',
      message: 'false: every call runs without a person, deny rules included',
    });
  if (approval.mode === 'yolo')
    warnings.push({
      path: 'approval.mode',
      message:
        'yolo: every command the shell rules read through runs without a person (high-risk and banned ones still stop)',
    });
  for (const [tool, override] of Object.entries(approval.toolOverrides ?? {})) {
    if (override === false && REACHING_TOOLS.has(tool))
      warnings.push({
        path: `approval.toolOverrides.${tool}`,
        message: `false: ${tool} runs without a person (risky shell commands still ask)`,
      });
  }
  for (const [index, tool] of (approval.approvalTools ?? []).entries()) {
    if (REACHING_TOOLS.has(tool))
      warnings.push({
        path: `approval.approvalTools[${index}]`,
        message: `${tool} is whitelisted: its calls run without a person`,
      });
  }
  if (approval.sessionMemory === undefined || approval.sessionMemory === 'automatic') {
    if (approval.memoryWindow !== undefined && approval.memoryWindow > 3_600_000)
      warnings.push({
        path: 'approval.memoryWindow',
        message: 'over an hour: an approved call repeats without asking for that long',
      });
  }
  return warnings;
}
