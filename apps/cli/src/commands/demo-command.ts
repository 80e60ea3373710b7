import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseApprovalMode } from '../approval-mode-option.js';
import { createDemoModel } from '../demo-model.js';
import { ExitCode } from '../exit-code.js';
import { DEMO_HELP } from '../help-text.js';
import { parseInputAssignments } from '../parse-input-assignments.js';
import { runWorkflow } from '../run-workflow.js';
import { packageFile } from '../package-files.js';
import { parseStoreOption } from '../store-option.js';
import { colourWanted, createTerminalStyle } from '../terminal-style.js';
import { UsageError } from '../usage-error.js';
import { withUsageErrors } from './with-usage-errors.js';

/**
 * A demo's workflow: beside the built CLI (`dist/workflows/`, copied there by the build, so an
 * installed package has it), else in the repository's examples/ (running from the sources).
 */
function demoWorkflow(name: string): string {
  const packaged = packageFile(`dist/workflows/${name}.toml`);
  return existsSync(packaged) ? packaged : packageFile(`../../examples/workflows/${name}.toml`);
}

const DEMOS = {
  'plan-approval': demoWorkflow('plan-approval'),
  'coding-agent': demoWorkflow('coding-agent'),
} as const;

type DemoName = keyof typeof DEMOS;

/** The README of the coding-agent demo's workspace: the file its agent reads. */
const DEMO_README = `# Demo project

A small project for the Interlock coding-agent demo. The agent may read this file,
write NOTES.md (if you approve), and propose shell commands.
`;

/**
 * `interlock demo [plan-approval|coding-agent] [--mode …] [--store SPEC] [--input key=value ...] [--json]`:
 * an example workflow with the scripted demo model. `plan-approval` (the default) drafts a
 * plan and asks whether to go ahead; `coding-agent` proposes four tool calls at once in a
 * new temporary workspace (with a README.md), whose path it prints.
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
        mode: { type: 'string' },
        store: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }),
  );
  if (values.help) {
    process.stdout.write(DEMO_HELP);
    return ExitCode.completed;
  }
  const [requested = 'plan-approval', ...extra] = positionals;
  const name = demoName(requested);
  if (extra.length > 0) throw new UsageError(`interlock demo runs one demo, not also ${extra.join(' ')}`, 'demo');
  const options = {
    workflowPath: DEMOS[name],
    input: parseInputAssignments(values.input ?? []),
    json: values.json ?? false,
    model: createDemoModel(),
    modelSpec: { model: 'scripted' },
    store: parseStoreOption(values.store, 'demo'),
    mode: parseApprovalMode(values.mode, 'demo'),
    command: 'demo',
    commandLine: name === 'plan-approval' ? 'interlock demo' : `interlock demo ${name}`,
  };
  if (name === 'plan-approval') return runWorkflow(options);
  const workspaceRoot = await createDemoWorkspace(values.json ?? false);
  return runWorkflow({ ...options, workspaceRoot });
}

function demoName(name: string): DemoName {
  if (name === 'plan-approval' || name === 'coding-agent') return name;
  throw new UsageError(
    `interlock demo: there is no demo "${name}": use plan-approval or coding-agent (to run a workflow file: interlock run <workflow>)`,
    'demo',
  );
}

/** A new temporary directory with a README.md; says where, on stderr under --json. */
async function createDemoWorkspace(json: boolean): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'interlock-coding-agent-'));
  await writeFile(join(directory, 'README.md'), DEMO_README);
  const stream = json ? process.stderr : process.stdout;
  const style = createTerminalStyle(colourWanted(stream));
  stream.write(
    `${style.bold('Workspace:')} ${directory} ${style.dim('(a new temporary directory with a README.md; the tools work only inside it)')}\n`,
  );
  return directory;
}
