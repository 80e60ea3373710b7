import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { assertBuilt, runBuiltCli, type CliRun } from './built-cli.js';

/**
 * The audit trail of the coding-agent demo (reads run on a rule, one write a person
 * approves, one they reject), run once for the test file with the built CLI on the default
 * store of a temporary directory of its own, and exported with `audit --json`.
 */
export function demoAudit<Exported>(prefix: string) {
  let directory: string;
  let workspace: string | undefined;
  let exported: Exported;

  /** The built CLI in that directory: no store or receipt key from the test's environment, `environment` added. */
  const cli = (args: string[], stdin = '', environment: NodeJS.ProcessEnv = {}): Promise<CliRun> =>
    runBuiltCli(
      args,
      stdin,
      60_000,
      { INTERLOCK_STORE: undefined, INTERLOCK_RECEIPT_KEY: undefined, ...environment },
      directory,
    );

  beforeAll(async () => {
    assertBuilt();
    directory = await mkdtemp(join(tmpdir(), `interlock-${prefix}-`));
    const demo = await cli(['demo', 'coding-agent'], 'y\nn: not today\n');
    workspace = /^Workspace: (\S+)/m.exec(demo.stdout)?.[1];
    expect(demo.exitCode, demo.stderr).toBe(0);
    exported = JSON.parse((await cli(['audit', '--json'])).stdout) as Exported;
  }, 60_000);
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
    if (workspace !== undefined) await rm(workspace, { recursive: true, force: true });
  });

  /** Writes `content` (as JSON) to a new file in the directory: its path. */
  async function saved(name: string, content: unknown): Promise<string> {
    const path = join(directory, `${name}-${Math.random().toString(36).slice(2)}.json`);
    await writeFile(path, JSON.stringify(content));
    return path;
  }

  return {
    cli,
    get directory(): string {
      return directory;
    },
    /** What `audit --json` printed after the demo. */
    get exported(): Exported {
      return exported;
    },
    /** `audit --verify` of a saved copy of the trail, against the keys of `jwks` where given. */
    async verifyCopy(copy: unknown, jwks?: unknown): Promise<CliRun> {
      const path = await saved('copy', copy);
      if (jwks === undefined) return cli(['audit', '--verify', '--file', path]);
      return cli(['audit', '--verify', '--file', path, '--jwks', await saved('jwks', jwks)]);
    },
  };
}
