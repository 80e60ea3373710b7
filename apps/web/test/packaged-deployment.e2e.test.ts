import { execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until, spawnProcessGroup } from '@interlock/core/testing';

/*
 * The README's "Deploying", followed as a team would (issue 28): the packages packed here
 * with scripts/pack-packages.mjs (the commands and every workspace package they need),
 * installed with the README's install line into an empty project outside the repository
 * (every @interlock package from a tarball packed here, none from a registry), and that
 * section's files and commands run as written there — the service (`node service.mjs`,
 * importing @interlock/core), `npx interlock-web` and `npx interlock worker` — on PostgreSQL with the schema in the URL. A refund is approved in the page and
 * finished by the service's worker. Run it on its own: `pnpm exec vitest run --project packaging`.
 */

const REPOSITORY = fileURLToPath(new URL('../../../', import.meta.url));
const BASE_URL = process.env['INTERLOCK_TEST_POSTGRES_URL'] ?? '';
const schema = `team_${process.pid}_${Date.now().toString(36)}`;
const children: ChildProcess[] = [];
let project = '';

afterAll(async () => {
  // Each command runs in a process group of its own: this stops the shell and the server it ran.
  for (const child of children) child.kill('SIGKILL');
  if (BASE_URL !== '') {
    const admin = new pg.Client({ connectionString: BASE_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}_jobs" CASCADE`);
    await admin.end();
  }
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
    env: { ...process.env, ...environment },
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

describe("the README's Deploying, with the packed packages installed outside the repository (issue 28)", () => {
  beforeAll(() => {
    for (const built of ['packages/core/dist/index.js', 'apps/cli/dist/main.js', 'apps/web/dist/main.js'])
      if (!existsSync(join(REPOSITORY, built))) throw new Error(`${built} is missing: run pnpm build first`);
    if (BASE_URL === '') throw new Error('INTERLOCK_TEST_POSTGRES_URL is not set');
  });

  it('approves a refund in the page of npx interlock-web; the service’s worker finishes it, and npx interlock worker serves beside it', async () => {
    const root = await mkdtemp(join(tmpdir(), 'interlock-packaged-'));
    project = join(root, 'team');
    await mkdir(project);
    // 1. Install: pack here, then the README's install lines there. (Install scripts are skipped:
    // better-sqlite3 would build from source for a minute or two, and PostgreSQL never loads it.)
    const packed = execFileSync(
      process.execPath,
      [join(REPOSITORY, 'scripts/pack-packages.mjs'), join(root, 'interlock-packages')],
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
    execFileSync('npm', ['init', '-y'], { cwd: project, stdio: 'ignore' });
    const install = readmeInstall();
    expect(install).toEqual(['npm install ../interlock-packages/*.tgz zod']);
    for (const line of install)
      execFileSync(
        'bash',
        ['-c', line.startsWith('npm install ') ? `${line} --ignore-scripts --no-audit --no-fund` : line],
        { cwd: project, stdio: ['ignore', 'ignore', 'pipe'], timeout: 900_000 },
      );
    const installed = JSON.parse(readFileSync(join(project, 'node_modules/@interlock/core/package.json'), 'utf8'));
    expect(installed.dependencies['@interlock/sdk-types']).toBe('0.1.0');
    // Every @interlock package came from a tarball packed here, none from a registry.
    const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { resolved?: string }>;
    };
    const fromLock = Object.entries(lock.packages).filter(([path]) => /node_modules\/@interlock\//.test(path));
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

    // 3. Run it: one URL with the schema in it, for every process.
    const model = await modelServer();
    const url = new URL(BASE_URL);
    url.searchParams.set('schema', schema);
    const environment = { DATABASE_URL: url.toString(), OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'sk-team' };
    const [service, inbox, cliWorker] = commands;
    await start(service ?? '', environment, /Refund (\S+) waits for an approver/);
    // The README's inbox listens on every interface, as in a container; here, on loopback only.
    const web = await start(
      `${(inbox ?? '').replace('--host 0.0.0.0', '--host 127.0.0.1')} --port 0`,
      environment,
      /Interlock web inbox: http:\/\/[^:]+:(\d+)\/[\s\S]*\n\n {2}(\S+)\n\n/,
    );
    await start(cliWorker ?? '', environment, /Worker ready/);
    const [, port = '', token = ''] = web.match;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the test reads whatever JSON came back
    const api = async (path: string, body?: unknown): Promise<any> => {
      const response = await fetch(`http://127.0.0.1:${port}${path}`, {
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
    const { interactions } = await until(
      'the refund to wait',
      () => api('/api/interactions'),
      (body) => body.interactions?.length === 1,
    );
    const [approval] = interactions;
    expect(approval.toolApproval).toMatchObject({ toolName: 'refund', toolParameters: { order: 'A-1', cents: 1299 } });
    expect(await api(`/api/interactions/${approval.interactionId}/respond`, { action: 'approve' })).toMatchObject({
      status: 200,
      continuation: 'scheduled',
      served: true,
      message: expect.stringContaining('a worker serving workflow "refund" version 1'),
    });
    const thread = await until(
      'the service to finish the refund',
      () => api(`/api/threads/${approval.threadId}`),
      (body) => body.thread?.status === 'completed',
    );
    expect(thread.entries).toContainEqual(
      expect.objectContaining({ kind: 'tool', title: expect.stringContaining('refund') }),
    );
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

    // Every process used the schema the URL names.
    const admin = new pg.Client({ connectionString: BASE_URL });
    await admin.connect();
    try {
      const { rows } = await admin.query(`SELECT count(*)::int AS threads FROM "${schema}".threads`);
      expect(rows[0]).toEqual({ threads: 2 });
    } finally {
      await admin.end();
    }
  }, 900_000);
});
