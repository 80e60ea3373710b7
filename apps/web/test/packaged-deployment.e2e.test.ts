import { execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownDatabase, spawnProcessGroup, until, type OwnDatabase } from '@interlock/core/testing';
import { launchChromium, screenshot, signedInPage } from './browser.js';

/*
 * The README's "Deploying", followed as a team would (issues 28, 34; F46, F55, F61): the
 * packages packed here with scripts/pack-packages.mjs (the commands and every workspace
 * package they need), installed with the README's install lines into an empty project
 * outside the repository (every @interlock package from a tarball packed here, none from a
 * registry; one better-sqlite3), and that section's files and commands run as written there
 * — the service (`node service.mjs`, calling createWorker), `npx interlock-web` and
 * `npx interlock worker` — on the README's plain URL, no schema, in a database of its own,
 * so its default schemas are really the defaults. A refund is started from the page and
 * approved in Chromium, and the service's worker runs it once. Run it on its own:
 * `pnpm build && pnpm exec vitest run --project packaging`.
 */

const REPOSITORY = fileURLToPath(new URL('../../../', import.meta.url));
/**
 * The team's shell: the Node that runs these tests first on the PATH, so npm, npx and the
 * commands they start run on it (Node 24 under `pnpm test`, 26 and 22 in CI's other runs),
 * as they would on a machine where that is the only Node.
 */
const TEAM_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  PATH: `${dirname(process.execPath)}:${process.env['PATH'] ?? ''}`,
};
const BASE_URL = process.env['INTERLOCK_TEST_POSTGRES_URL'] ?? '';
const children: ChildProcess[] = [];
let project = '';
let database: OwnDatabase | undefined;
let browser: Browser | undefined;

afterAll(async () => {
  await browser?.close();
  // A command line is a process group of its own (spawnProcessGroup): npx's and bash's
  // children go with it, even after bash has exited.
  for (const child of children) child.kill('SIGKILL');
  await database?.drop();
  if (project !== '') await rm(dirname(project), { recursive: true, force: true });
});

/** The README's code blocks of one language: each one's text, keyed by the file name on its first line. */
function readmeBlocks(): { files: Map<string, string>; commands: string[] } {
  const readme = readFileSync(join(REPOSITORY, 'README.md'), 'utf8');
  const deploying = readme.slice(readme.indexOf('## Deploying'), readme.indexOf('## The public API'));
  const files = new Map<string, string>();
  for (const match of deploying.matchAll(/```(?:toml|js)\n(?:#|\/\/) ([\w./-]+)[^\n]*\n([\s\S]*?)```/g))
    files.set(match[1] ?? '', match[2] ?? '');
  const run = /```sh\n(export DATABASE_URL=[\s\S]*?)```/.exec(deploying)?.[1] ?? '';
  const commands = run
    .split('\n')
    .map((line) => line.replace(/\s{2,}#.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('export '));
  return { files, commands };
}

/** The README's install lines for the team's project (after the packing line), comments and the packing left out. */
function readmeInstall(): string[] {
  const readme = readFileSync(join(REPOSITORY, 'README.md'), 'utf8');
  const deploying = readme.slice(readme.indexOf('## Deploying'), readme.indexOf('## The public API'));
  const block = /```sh\n(# in this repository[\s\S]*?)```/.exec(deploying)?.[1] ?? '';
  return block
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#') && !line.includes('scripts/pack-packages.mjs'));
}

/** A model server of OpenAI's API: it proposes `refund` for order A-1, then reports the tool's result. */
async function modelServer(): Promise<{ baseUrl: string; toolResults: string[] }> {
  const toolResults: string[] = [];
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      const body = JSON.parse(text) as { messages: { role: string; content: string }[] };
      const result = body.messages.find((message) => message.role === 'tool');
      if (result !== undefined) toolResults.push(result.content);
      const message =
        result === undefined
          ? {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: 'call_refund',
                  type: 'function',
                  function: { name: 'refund', arguments: '{"order":"A-1","cents":1299}' },
                },
              ],
            }
          : { role: 'assistant', content: `Done: ${result.content}` };
      const chunk = {
        id: 'chatcmpl-1',
        object: 'chat.completion.chunk',
        created: 1,
        model: 'gpt-4o-mini',
        choices: [
          {
            index: 0,
            delta: message,
            finish_reason: result === undefined ? 'tool_calls' : 'stop',
          },
        ],
      };
      const whole = { ...chunk, object: 'chat.completion', choices: [{ ...chunk.choices[0], message }] };
      if ((JSON.parse(text) as { stream?: boolean }).stream === true) {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const indexed = {
          ...message,
          ...('tool_calls' in message ? { tool_calls: message.tool_calls.map((call) => ({ index: 0, ...call })) } : {}),
        };
        response.end(
          `data: ${JSON.stringify({ ...chunk, choices: [{ ...chunk.choices[0], delta: indexed }] })}\n\ndata: [DONE]\n\n`,
        );
      } else {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(whole));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  children.push({ kill: () => server.close(), exitCode: null } as unknown as ChildProcess);
  const address = server.address();
  return {
    baseUrl: `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/v1`,
    toolResults,
  };
}

/** Runs one of the README's command lines in the project, as a shell would; resolves once it printed `pattern`. */
function start(
  line: string,
  environment: NodeJS.ProcessEnv,
  pattern: RegExp,
): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawnProcessGroup('bash', ['-c', line], {
    cwd: project,
    env: { ...TEAM_ENV, ...environment },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let printed = '';
  return new Promise((resolve, reject) => {
    const heard = (chunk: Buffer) => {
      printed += chunk.toString();
      const match = pattern.exec(printed);
      if (match) resolve({ child, match });
    };
    child.stdout.on('data', heard);
    child.stderr.on('data', heard);
    child.on('close', (code) => reject(new Error(`${line} exited (${code}) before printing ${pattern}:\n${printed}`)));
  });
}

describe("the README's Deploying, with the packed packages installed outside the repository (issues 28, 34)", () => {
  beforeAll(() => {
    for (const built of ['packages/core/dist/index.js', 'apps/cli/dist/main.js', 'apps/web/dist/main.js'])
      if (!existsSync(join(REPOSITORY, built))) throw new Error(`${built} is missing: run pnpm build first`);
    if (BASE_URL === '') throw new Error('INTERLOCK_TEST_POSTGRES_URL is not set');
  });

  it('on a plain DATABASE_URL: a refund started and approved in the page of npx interlock-web is run once by the service’s worker, and npx interlock worker serves beside it (F46, F55, F61)', async () => {
    const root = await mkdtemp(join(tmpdir(), 'interlock-packaged-'));
    project = join(root, 'team');
    await mkdir(project);
    // 1. Install: pack here, then the README's install lines there. (Install scripts are skipped:
    // better-sqlite3 would build from source for a minute or two, and PostgreSQL never loads it.)
    const packed = execFileSync(
      process.execPath,
      [
        join(REPOSITORY, 'scripts/pack-packages.mjs'),
        join(root, 'interlock-packages'),
        '@interlock/cli',
        '@interlock/web',
      ],
      { encoding: 'utf8' },
    );
    const tarballs = packed.split('\n').filter((line) => line.endsWith('.tgz'));
    // The commands and every workspace package they need, followed through the dependency graph.
    expect(tarballs.map((file) => file.slice(file.lastIndexOf('/') + 1)).sort()).toEqual([
      'interlock-chat-0.1.0.tgz',
      'interlock-chat-feishu-0.1.0.tgz',
      'interlock-chat-slack-0.1.0.tgz',
      'interlock-chat-whatsapp-0.1.0.tgz',
      'interlock-cli-0.1.0.tgz',
      'interlock-core-0.1.0.tgz',
      'interlock-sdk-types-0.1.0.tgz',
      'interlock-telemetry-0.1.0.tgz',
      'interlock-web-0.1.0.tgz',
    ]);
    execFileSync('npm', ['init', '-y'], { cwd: project, stdio: 'ignore', env: TEAM_ENV });
    const install = readmeInstall();
    expect(install).toEqual([
      "npm pkg set 'overrides.typeorm.better-sqlite3=^13.2.0'",
      'npm install ../interlock-packages/*.tgz zod',
    ]);
    for (const line of install)
      execFileSync(
        'bash',
        ['-c', line.startsWith('npm install ') ? `${line} --ignore-scripts --no-audit --no-fund` : line],
        { cwd: project, stdio: ['ignore', 'ignore', 'pipe'], timeout: 900_000, env: TEAM_ENV },
      );
    const installed = JSON.parse(readFileSync(join(project, 'node_modules/@interlock/core/package.json'), 'utf8'));
    expect(installed.dependencies['@interlock/sdk-types']).toBe('0.1.0');
    // Every @interlock package came from a tarball packed here, none from a registry.
    const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string; resolved?: string; extraneous?: boolean }>;
    };
    const fromLock = Object.entries(lock.packages).filter(([path]) => /node_modules\/@interlock\/[^/]+$/.test(path));
    expect(fromLock.map(([path]) => path.replace(/^.*node_modules\//, '')).sort()).toEqual(
      tarballs
        .map(
          (file) =>
            `@${file
              .slice(file.lastIndexOf('/') + 1)
              .replace(/-\d+\.\d+\.\d+.*\.tgz$/, '')
              .replace('-', '/')}`,
        )
        .sort(),
    );
    for (const [, entry] of fromLock)
      expect(entry.resolved).toMatch(/^file:\.\.\/interlock-packages\/interlock-.*\.tgz$/);
    // One better-sqlite3, the one core's SQLite store asks for: without the README's override,
    // npm adds TypeORM's optional peer (^12) beside it, extraneous, built for nothing.
    const sqlite = Object.entries(lock.packages).filter(([path]) => /node_modules\/better-sqlite3$/.test(path));
    expect(sqlite.map(([path, entry]) => [path, entry.version?.split('.')[0], entry.extraneous ?? false])).toEqual([
      ['node_modules/better-sqlite3', installed.dependencies['better-sqlite3'].replace(/^\^(\d+).*$/, '$1'), false],
    ]);

    // 2. The README's files, as written.
    const { files, commands } = readmeBlocks();
    expect([...files.keys()].sort()).toEqual(['service.mjs', 'workflows/refund.toml', 'workflows/release-note.toml']);
    for (const [name, text] of files) {
      await mkdir(dirname(join(project, name)), { recursive: true });
      await writeFile(join(project, name), text);
    }
    expect(commands).toEqual([
      'node service.mjs',
      'npx interlock-web --store "$DATABASE_URL" --host 0.0.0.0',
      'npx interlock worker workflows/release-note.toml --store "$DATABASE_URL"',
    ]);

    // 3. Run it: the README's plain URL, no schema, on a database of its own.
    const own = await ownDatabase(BASE_URL, 'packaged');
    database = own;
    const model = await modelServer();
    const environment = { DATABASE_URL: own.url, OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'sk-team' };
    const [service, inbox, cliWorker] = commands;
    await start(service ?? '', environment, /Serving refund: start a refund in the inbox/);
    // The README's inbox listens on every interface, as in a container; here, on loopback only.
    const web = await start(
      `${(inbox ?? '').replace('--host 0.0.0.0', '--host 127.0.0.1')} --port 0`,
      environment,
      /Interlock web inbox: http:\/\/[^:]+:(\d+)\/[\s\S]*\n\n {2}(\S+)\n\n/,
    );
    await start(cliWorker ?? '', environment, /Worker ready/);
    const [, port = '', token = ''] = web.match;
    const baseUrl = `http://127.0.0.1:${port}`;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the test reads whatever JSON came back
    const api = async (path: string, body?: unknown): Promise<any> => {
      const response = await fetch(`${baseUrl}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, ...((await response.json()) as Record<string, unknown>) };
    };

    const workflows = await until(
      'both workers to offer their workflows',
      () => api('/api/workflows'),
      (body) => body.workflows?.length === 2,
    );
    expect(workflows.workflows.map((workflow: { id: string }) => workflow.id).sort()).toEqual([
      'refund',
      'release-note',
    ]);

    // In the page: start a refund, say which order, approve the call the model proposes.
    browser = await launchChromium();
    const page = await signedInPage(browser, baseUrl, token);
    await page.getByRole('link', { name: 'Threads' }).click();
    await page.getByLabel('Workflow').selectOption('refund');
    await page.getByRole('button', { name: 'Start workflow' }).click();
    await page.getByRole('link', { name: 'Inbox' }).click();
    const which = page.locator('.cards .card.question', { hasText: 'Which order should be refunded?' });
    await which.locator('.answer-text').fill('A-1');
    await which.getByRole('button', { name: 'Send' }).click();
    const approval = page.locator('.cards .card.approval[data-tool="refund"]').filter({ hasText: 'A-1' });
    await approval.getByRole('button', { name: 'Approve', exact: true }).click();
    const { threads } = await until(
      'the service to finish the refund',
      () => api('/api/threads'),
      (body) => body.threads?.some((thread: { workflowId: string; status: string }) => thread.status === 'completed'),
    );
    const [refund] = threads.filter((thread: { workflowId: string }) => thread.workflowId === 'refund');
    expect(refund).toMatchObject({ status: 'completed' });
    await page.goto(`${baseUrl}/#/threads/${refund.threadId}`);
    await page.locator('.timeline-view .status-completed').waitFor();
    const entries = await page.locator('.timeline .entry').allTextContents();
    expect(entries.filter((entry) => entry.includes('allowed refund'))).toHaveLength(1);
    expect(entries.filter((entry) => entry.includes('refund: '))).toHaveLength(1);
    await screenshot(page, 'packaged-refund');
    // Run once, by the service's worker.
    expect(model.toolResults).toEqual(['[SUCCESS] refunded 1299 cents on A-1']);

    // The CLI's worker takes its workflow through the page too: a question, then a write it asks about.
    const started = await api('/api/threads', { workflowId: 'release-note' });
    const [question] = (
      await until(
        'the note question',
        () => api(`/api/interactions?threadId=${started.threadId}`),
        (body) => body.interactions?.length === 1,
      )
    ).interactions;
    await api(`/api/interactions/${question.interactionId}/respond`, {
      action: 'answer',
      value: 'Refunds are approved in the inbox.',
    });
    const [write] = (
      await until(
        'the write to wait',
        () => api(`/api/interactions?threadId=${started.threadId}`),
        (body) => body.interactions?.[0]?.toolApproval !== undefined,
      )
    ).interactions;
    await api(`/api/interactions/${write.interactionId}/respond`, { action: 'approve' });
    await until(
      'the note to be written',
      () => api(`/api/threads/${started.threadId}`),
      (body) => body.thread?.status === 'completed',
    );
    expect(readFileSync(join(project, 'RELEASE_NOTE.md'), 'utf8')).toBe('Refunds are approved in the inbox.');

    // Every process kept the threads in the database's default schema, the jobs beside it.
    const admin = new pg.Client({ connectionString: own.url });
    await admin.connect();
    try {
      const { rows } = await admin.query(
        `SELECT (SELECT count(*)::int FROM public.threads) AS threads,
                (SELECT array_agg(nspname::text ORDER BY nspname) FROM pg_namespace
                  WHERE nspname IN ('public_jobs', 'graphile_worker')) AS queues`,
      );
      expect(rows[0]).toEqual({ threads: 2, queues: ['public_jobs'] });
    } finally {
      await admin.end();
    }
  }, 900_000);
});
