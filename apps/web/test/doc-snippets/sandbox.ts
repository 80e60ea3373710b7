import type { ChildProcess } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnProcessGroup } from '@interlock/core/testing';

/** The repository root. */
export const REPOSITORY = fileURLToPath(new URL('../../../../', import.meta.url));

/** What a command line printed, and how it ended. */
export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * A directory where a document's snippet runs as written, outside the repository: the
 * repository's `apps/` and `examples/` are there (snippets name `apps/cli/dist/main.js`,
 * `examples/workflows/…`), `interlock` and `interlock-web` are on the PATH and in
 * `node_modules/.bin` (for `npx`) as the built commands, `@interlock/core` resolves to the
 * built package, and `node` is the Node the tests run on. Nothing of the test's own
 * environment names a store (INTERLOCK_STORE, DATABASE_URL are removed).
 */
export class Sandbox {
  private readonly children: ChildProcess[] = [];

  private constructor(
    readonly directory: string,
    private readonly environment: NodeJS.ProcessEnv,
  ) {}

  static async create(): Promise<Sandbox> {
    const directory = await mkdtemp(join(tmpdir(), 'interlock-doc-snippet-'));
    for (const name of ['apps', 'examples']) await symlink(join(REPOSITORY, name), join(directory, name));
    // A project of its own, so that `pnpm exec` runs its node_modules/.bin as in the repository.
    await writeFile(join(directory, 'package.json'), '{ "name": "doc-snippet", "private": true }\n');
    const bin = join(directory, 'node_modules', '.bin');
    await mkdir(bin, { recursive: true });
    await mkdir(join(directory, 'node_modules', '@interlock'));
    for (const name of ['core', 'sdk-types'])
      await symlink(join(REPOSITORY, 'packages', name), join(directory, 'node_modules', '@interlock', name));
    for (const [command, main] of [
      ['interlock', 'apps/cli/dist/main.js'],
      ['interlock-web', 'apps/web/dist/main.js'],
    ] as const) {
      await writeFile(join(bin, command), `#!/bin/sh\nexec "${process.execPath}" "${join(REPOSITORY, main)}" "$@"\n`);
      await chmod(join(bin, command), 0o755);
    }
    const environment: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    for (const name of ['INTERLOCK_STORE', 'DATABASE_URL', 'FORCE_COLOR']) delete environment[name];
    environment['PATH'] = `${bin}:${dirname(process.execPath)}:${process.env['PATH'] ?? ''}`;
    return new Sandbox(directory, environment);
  }

  /** Writes a file of the sandbox (its folder made). */
  async write(path: string, text: string): Promise<void> {
    await mkdir(dirname(join(this.directory, path)), { recursive: true });
    await writeFile(join(this.directory, path), text);
  }

  /** Runs one command line with bash, as a shell would, to its end. */
  run(line: string, options: { stdin?: string; environment?: Record<string, string> } = {}): Promise<Ran> {
    const child = this.spawn(line, options.environment);
    child.stdin?.end(options.stdin ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  }

  /** Starts a command line that keeps running; resolves once it printed `pattern`. */
  start(line: string, pattern: RegExp, environment?: Record<string, string>): Promise<RegExpExecArray> {
    const child = this.spawn(line, environment);
    child.stdin?.end();
    let printed = '';
    return new Promise((resolve, reject) => {
      const heard = (chunk: Buffer) => {
        printed += chunk.toString();
        const match = pattern.exec(printed);
        if (match) resolve(match);
      };
      child.stdout?.on('data', heard);
      child.stderr?.on('data', heard);
      child.on('close', (code) => reject(new Error(`${line} exited (${code}) before ${pattern}:\n${printed}`)));
    });
  }

  /** Runs TypeScript (Node's type stripping) as a module of the sandbox; resolves with what it printed. */
  async module(code: string, environment?: Record<string, string>): Promise<Ran> {
    await this.write('snippet.mts', code);
    return this.run('node snippet.mts', environment === undefined ? {} : { environment });
  }

  /** The environment its commands see, with `extra`. */
  environmentWith(extra: Record<string, string> = {}): Record<string, string> {
    return { ...(this.environment as Record<string, string>), ...extra };
  }

  async close(): Promise<void> {
    // Each command line is a process group of its own (spawnProcessGroup): npx and bash leave
    // no child behind, even one whose bash has already exited.
    for (const child of this.children) child.kill('SIGKILL');
    await rm(this.directory, { recursive: true, force: true });
  }

  private spawn(line: string, environment: Record<string, string> = {}): ChildProcess {
    const child = spawnProcessGroup('bash', ['-c', line], {
      cwd: this.directory,
      env: { ...this.environment, ...environment },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.children.push(child);
    return child;
  }
}
