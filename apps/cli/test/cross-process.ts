import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UserInteractionRequest } from '@interlock/sdk-types';
import { REPOSITORY_ROOT, runBuiltCli, type CliRun } from './built-cli.js';

/** The example workflows, by absolute path (the cross-process tests run in temporary directories). */
export const EXAMPLES = {
  planApproval: join(REPOSITORY_ROOT, 'examples/workflows/plan-approval.toml'),
  codingAgent: join(REPOSITORY_ROOT, 'examples/workflows/coding-agent.toml'),
};

/** A workflow that asks one text question and ends with the answer. */
export const ASK_WORKFLOW = `id = "ask-once"
name = "Ask once"
version = "1"

[[variables]]
name = "answer"
scope = "thread"

[[nodes]]
id = "start"
type = "START"

[[nodes]]
id = "ask"
type = "USER_INTERACTION"
[nodes.config]
operationType = "UPDATE_VARIABLES"
prompt = "Ship it?"
input = { kind = "text" }
variables = [ { variableName = "answer", expression = "{{ input }}", scope = "thread" } ]

[[nodes]]
id = "end"
type = "END"
[nodes.config]
output = "the answer was {{ answer }}"

[[edges]]
from = "start"
to = "ask"

[[edges]]
from = "ask"
to = "end"
`;

/** What `run --detach --json` prints. */
export interface Detached {
  threadId: string;
  status: string;
  pendingInteractionIds: string[];
}

/** A new temporary working directory with `ask.toml` (the {@link ASK_WORKFLOW}) in it. */
export async function createWorkingDirectory(prefix = 'interlock-cross-process-'): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), prefix));
  await writeFile(join(directory, 'ask.toml'), ASK_WORKFLOW);
  return directory;
}

/**
 * Runs the built CLI as its own process in `directory`, on the default store of that
 * directory (`.interlock/interlock.db`) unless `environment` or the arguments say otherwise.
 */
export function cliIn(
  directory: string,
  args: string[],
  stdin = '',
  environment: NodeJS.ProcessEnv = {},
): Promise<CliRun> {
  return runBuiltCli(args, stdin, 30_000, { INTERLOCK_STORE: undefined, ...environment }, directory);
}

/** Parses the one JSON line a command printed, failing with its output when it is not JSON. */
export function jsonOf<T>(run: CliRun): T {
  try {
    return JSON.parse(run.stdout) as T;
  } catch {
    throw new Error(`expected one JSON line (exit ${run.exitCode}); stdout:\n${run.stdout}\nstderr:\n${run.stderr}`);
  }
}

/** `interlock pending --json` in `directory`. */
export async function pendingIn(
  directory: string,
  args: string[] = [],
  environment: NodeJS.ProcessEnv = {},
): Promise<UserInteractionRequest[]> {
  const run = await cliIn(directory, ['pending', '--json', ...args], '', environment);
  if (run.exitCode !== 0) throw new Error(`interlock pending failed (${run.exitCode}):\n${run.stderr}`);
  return jsonOf<UserInteractionRequest[]>(run);
}
