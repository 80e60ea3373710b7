import { readFileSync } from 'node:fs';
import { toInterlockError } from '@interlock/core';
import { auditCommand } from './commands/audit-command.js';
import { demoCommand } from './commands/demo-command.js';
import { explainCommand } from './commands/explain-command.js';
import { pendingCommand } from './commands/pending-command.js';
import { respondCommand } from './commands/respond-command.js';
import { resumeCommand } from './commands/resume-command.js';
import { runCommand } from './commands/run-command.js';
import { threadsCommand } from './commands/threads-command.js';
import { validateCommand } from './commands/validate-command.js';
import { workerCommand } from './commands/worker-command.js';
import { CONFIG_ACTIONS, configCommand } from './commands/config-command.js';
import { MCP_SUBCOMMANDS, mcpCommand } from './commands/mcp-command.js';
import { RECEIPTS_SUBCOMMANDS, receiptsCommand } from './commands/receipts-command.js';
import { ExitCode } from './exit-code.js';
import { takeProjectConfig } from './project-config-option.js';
import { packageFile } from './package-files.js';
import { maskPassword } from './store-option.js';
import { TOP_LEVEL_HELP } from './help-text.js';
import { colourWanted, createTerminalStyle } from './terminal-style.js';
import { UsageError } from './usage-error.js';

const COMMANDS: Record<string, (argv: string[]) => Promise<ExitCode>> = {
  run: runCommand,
  demo: demoCommand,
  threads: threadsCommand,
  pending: pendingCommand,
  respond: respondCommand,
  resume: resumeCommand,
  audit: auditCommand,
  explain: explainCommand,
  validate: validateCommand,
  worker: workerCommand,
  mcp: mcpCommand,
  receipts: receiptsCommand,
};

/** Commands that take a subcommand: `config check`, `mcp list`, `mcp serve`, `receipts keys`… */
const SUBCOMMANDS: Readonly<Record<string, readonly string[]>> = {
  config: CONFIG_ACTIONS,
  mcp: MCP_SUBCOMMANDS,
  receipts: RECEIPTS_SUBCOMMANDS,
};

/**
 * Every command line the program takes, subcommands spelled out (`config check`, `mcp
 * serve`): what the help and the docs must list, no more and no fewer (issue 37).
 */
export const COMMAND_LINES: readonly string[] = [...Object.keys(COMMANDS), 'config'].flatMap(
  (command) => SUBCOMMANDS[command]?.map((subcommand) => `${command} ${subcommand}`) ?? [command],
);

/**
 * Runs the `interlock` command line and returns the exit code. Usage errors print their
 * message and a pointer to the help (code 2); unexpected errors print their message (code 1).
 *
 * @param argv - the arguments after `interlock`, e.g. `['run', 'flow.toml', '--json']`.
 */
export async function runCli(argv: string[]): Promise<ExitCode> {
  const errorStyle = createTerminalStyle(colourWanted(process.stderr));
  try {
    return await dispatch(argv);
  } catch (error) {
    if (error instanceof UsageError) {
      const help = error.helpCommand === undefined ? 'interlock --help' : `interlock ${error.helpCommand} --help`;
      process.stderr.write(`${errorStyle.red(error.message)}\n${errorStyle.dim(`See ${help}.`)}\n`);
      return ExitCode.usage;
    }
    const failure = toInterlockError(error);
    // A driver's message could quote a connection string: never print its password.
    process.stderr.write(`${errorStyle.red(`interlock: ${failure.code}: ${maskPassword(failure.message)}`)}\n`);
    return ExitCode.failed;
  }
}

async function dispatch(argv: string[]): Promise<ExitCode> {
  const [first, ...rest] = argv;
  if (first === undefined) {
    process.stderr.write(TOP_LEVEL_HELP);
    return ExitCode.usage;
  }
  if (first === '--help' || first === '-h') {
    process.stdout.write(TOP_LEVEL_HELP);
    return ExitCode.completed;
  }
  if (first === '--version' || first === '-v') {
    process.stdout.write(`${version()}\n`);
    return ExitCode.completed;
  }
  if (first === 'help') {
    const [topic] = rest;
    if (topic === undefined) {
      process.stdout.write(TOP_LEVEL_HELP);
      return ExitCode.completed;
    }
    return dispatch([topic, '--help']);
  }
  if (first === 'config') return configCommand(rest);
  const command = COMMANDS[first];
  if (command === undefined) {
    const known = [...Object.keys(COMMANDS), 'config'].join(', ');
    const hint = first.startsWith('-') ? `unknown option ${first}` : `unknown command "${first}"`;
    throw new UsageError(`interlock: ${hint}. Commands: ${known}.`);
  }
  return command(await takeProjectConfig(rest));
}

function version(): string {
  const manifest: unknown = JSON.parse(readFileSync(packageFile('package.json'), 'utf8'));
  const value =
    typeof manifest === 'object' && manifest !== null ? (manifest as { version?: unknown }).version : undefined;
  return typeof value === 'string' ? value : 'unknown';
}
