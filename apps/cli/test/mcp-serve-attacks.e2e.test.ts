import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BUILT_CLI } from './built-cli.js';
import { cliIn, jsonOf } from './cross-process.js';
import { spawnProcessGroup } from '@interlock/core/testing';

/*
 * Issue 24, items 1, 2, 4 and 6, against `interlock mcp serve` from the attacker's side: a
 * project file declaring a real MCP server (official SDK) whose tools collide with the names
 * agents ask about, hidden programs in yolo, a request over 10 MiB on stdio, and a web page
 * on another origin (and a DNS-rebound name) against --http.
 */
const HOSTILE_SERVER = fileURLToPath(
  new URL('../../../packages/core/src/mcp/__fixtures__/hostile-server.mjs', import.meta.url),
);

let directory: string;
let ledger: string;
const children: ChildProcess[] = [];
const clients: Client[] = [];
beforeAll(async () => {
  assertBuilt();
  directory = await mkdtemp(join(tmpdir(), 'interlock-serve-attacks-'));
  ledger = join(directory, 'ledger.txt');
  await writeFile(
    join(directory, 'interlock.toml'),
    [
      '[store]',
      'type = "sqlite"',
      'path = "interlock.db"',
      '[mcp.servers.evil]',
      `command = ${JSON.stringify(process.execPath)}`,
      `args = [${JSON.stringify(HOSTILE_SERVER)}]`,
      'env = ["HOSTILE_LEDGER"]',
      'tools = { steal = { category = "read", risk = "LOW" } }',
    ].join('\n'),
  );
}, 30_000);
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await rm(directory, { recursive: true, force: true });
});

const environment = () => ({ ...process.env, INTERLOCK_STORE: '', HOSTILE_LEDGER: ledger }) as Record<string, string>;

async function stdioClient(mode: string): Promise<Client> {
  const client = new Client({ name: 'agent', version: '1' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BUILT_CLI, 'mcp', 'serve', '--mode', mode],
      cwd: directory,
      env: environment(),
      stderr: 'ignore',
    }),
  );
  clients.push(client);
  return client;
}

async function permission(client: Client, toolName: string, input: Record<string, unknown>): Promise<unknown> {
  const result = await client.callTool({
    name: 'approval_prompt',
    arguments: { tool_name: toolName, input, tool_use_id: 'toolu_1' },
  });
  return JSON.parse((result.content as { text: string }[])[0]?.text ?? '') as unknown;
}

/** The pending approval of `toolName`, read by `interlock pending` in another process, once it is there. */
async function pendingFor(toolName: string): Promise<{ interactionId: string; toolApproval: { rule: string } }> {
  for (;;) {
    const pending = jsonOf<{ interactionId: string; toolApproval?: { toolName: string; rule: string } }[]>(
      await cliIn(directory, ['pending', '--json']),
    );
    const found = pending.find((request) => request.toolApproval?.toolName === toolName);
    if (found?.toolApproval !== undefined)
      return { interactionId: found.interactionId, toolApproval: found.toolApproval };
  }
}

describe('interlock mcp serve never executes (issue 24)', () => {
  it('asks about a name colliding with a declared server tool in yolo, never starts that server, and hands back only what the person wrote (F50)', async () => {
    const client = await stdioClient('yolo');
    const stolen = permission(client, 'mcp__evil__steal', { path: '~/.aws/credentials' });
    const first = await pendingFor('mcp__evil__steal');
    const approved = await cliIn(directory, ['respond', first.interactionId, 'approve']);
    expect(approved.exitCode, approved.stdout + approved.stderr).toBe(0);
    expect(await stolen).toEqual({ behavior: 'allow', updatedInput: { path: '~/.aws/credentials' } });

    const shaped = permission(client, 'mcp__evil__shaped', { command: 'ls' });
    const second = await pendingFor('mcp__evil__shaped');
    await cliIn(directory, ['respond', second.interactionId, 'edit', '{"command":"ls -a"}']);
    expect(await shaped).toEqual({ behavior: 'allow', updatedInput: { command: 'ls -a' } });
    expect(existsSync(ledger)).toBe(false);
  }, 90_000);

  it('asks in yolo about an agent Bash command that hides a program, and allows one the rules read through (F25, F50)', async () => {
    const client = await stdioClient('yolo');
    expect(await permission(client, 'Bash', { command: 'mkdir build' })).toEqual({
      behavior: 'allow',
      updatedInput: { command: 'mkdir build' },
    });
    const hidden = permission(client, 'Bash', { command: "git -c core.pager='sh -c id' log" });
    const asked = await pendingFor('Bash');
    expect(asked.toolApproval.rule).toBe('shell:hidden-effect');
    const rejected = await cliIn(directory, ['respond', asked.interactionId, 'reject', '--reason', 'no']);
    expect(rejected.stderr).toBe('');
    expect(rejected.exitCode).toBe(0);
    expect(await hidden).toMatchObject({ behavior: 'deny' });
    expect(await permission(client, 'Bash', { command: "git -c alias.x='!rm -rf ~' x" })).toMatchObject({
      behavior: 'deny',
      message: expect.stringContaining('shell:banned:rm-home'),
    });
  }, 90_000);

  it('answers the next request after one over 10 MiB on stdio, and tells the sender why (F50)', async () => {
    const serve = spawnProcessGroup(process.execPath, [BUILT_CLI, 'mcp', 'serve'], {
      cwd: directory,
      env: environment(),
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    children.push(serve);
    const answers = new Map<number, { error?: { message: string }; result?: unknown }>();
    let buffer = '';
    const arrived = new Set<() => void>();
    serve.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let newline = buffer.indexOf('\n');
      while (newline >= 0) {
        const message = JSON.parse(buffer.slice(0, newline)) as {
          id?: number;
          error?: { message: string };
          result?: unknown;
        };
        if (typeof message.id === 'number') answers.set(message.id, message);
        buffer = buffer.slice(newline + 1);
        newline = buffer.indexOf('\n');
      }
      for (const wake of arrived) wake();
    });
    const answerTo = (id: number) =>
      new Promise<{ error?: { message: string }; result?: unknown }>((resolve) => {
        const check = () => {
          const answer = answers.get(id);
          if (answer === undefined) return;
          arrived.delete(check);
          resolve(answer);
        };
        arrived.add(check);
        check();
      });
    const send = (message: unknown) => serve.stdin?.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    await answerTo(1);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({
      jsonrpc: '2.0',
      method: 'tools/call',
      params: { name: 'ask_user', arguments: { question: 'x'.repeat(11 * 1024 * 1024) } },
      id: 2,
    });
    send({ jsonrpc: '2.0', method: 'tools/list', id: 3 });
    expect((await answerTo(2)).error?.message).toMatch(/larger than 10485760 bytes/);
    expect(JSON.stringify((await answerTo(3)).result)).toContain('approval_prompt');
    serve.kill('SIGTERM');
  }, 60_000);
});

describe('interlock mcp serve --http: who may ask (issue 24)', () => {
  let serve: ChildProcess;
  let url: string;
  let browser: Browser | undefined;
  let page: Server | undefined;
  beforeAll(async () => {
    serve = spawnProcessGroup(process.execPath, [BUILT_CLI, 'mcp', 'serve', '--http', '0'], {
      cwd: directory,
      env: environment(),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(serve);
    let printed = '';
    url = await new Promise<string>((resolve, reject) => {
      serve.stderr?.on('data', (chunk: Buffer) => {
        printed += chunk.toString();
        const found = /on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(printed)?.[1];
        if (found !== undefined) resolve(found);
      });
      serve.once('exit', () => reject(new Error(`mcp serve exited: ${printed}`)));
    });
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    page?.close();
    serve.kill('SIGTERM');
  });

  const askUser = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'ask_user', arguments: { question: 'Paste your deploy token here' } },
  };

  it('refuses a DNS-rebound Host and a page on another origin before reading them, and serves its own client (F50)', async () => {
    const { port } = new URL(url);
    // node:http, not fetch: fetch will not send a Host of our choosing, a rebound name's browser does.
    const post = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const request = httpRequest(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        });
        request.once('response', (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        });
        request.once('error', reject);
        request.end(JSON.stringify(askUser));
      });
    expect(await post({ host: `attacker.example:${port}` })).toBe(403);
    expect(await post({ host: `localhost.attacker.example:${port}` })).toBe(403);
    expect(await post({ origin: 'http://attacker.example' })).toBe(403);
    expect(await post({ origin: 'null' })).toBe(403);
    const client = new Client({ name: 'agent', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    clients.push(client);
    expect(await permission(client, 'Grep', { pattern: 'TODO' })).toEqual({
      behavior: 'allow',
      updatedInput: { pattern: 'TODO' },
    });
    const pending = jsonOf<{ prompt: string }[]>(await cliIn(directory, ['pending', '--json']));
    expect(pending.some((request) => request.prompt.includes('deploy token'))).toBe(false);
  }, 60_000);

  it('keeps a real browser page on another origin from reaching the approvers with ask_user (F50)', async () => {
    page = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><script>
        window.attempts = Promise.all([
          fetch(${JSON.stringify(url)}, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' },
            body: ${JSON.stringify(JSON.stringify(askUser))} }).then(() => 'sent', (e) => String(e)),
          fetch(${JSON.stringify(url)}, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
            body: ${JSON.stringify(JSON.stringify(askUser))} }).then((r) => r.status, (e) => String(e)),
        ]);
      </script>`);
    });
    await new Promise<void>((resolve) => page?.listen(0, '127.0.0.1', resolve));
    const address = page.address();
    const pageUrl = `http://localhost:${typeof address === 'object' && address !== null ? address.port : 0}/`;
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
    const tab = await browser.newPage();
    await tab.goto(pageUrl);
    const attempts = await tab.evaluate(() => (globalThis as unknown as { attempts: Promise<unknown[]> }).attempts);
    expect(attempts).toHaveLength(2);
    const pending = jsonOf<{ prompt: string }[]>(await cliIn(directory, ['pending', '--json']));
    expect(pending.some((request) => request.prompt.includes('deploy token'))).toBe(false);
  }, 60_000);

  it('refuses to listen beyond loopback without a token, and then needs it on every request (F50)', async () => {
    const refused = await cliIn(directory, ['mcp', 'serve', '--http', '0', '--host', '0.0.0.0']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('--token-env');
    const token = 'a-long-random-token-for-this-test';
    const guarded = spawnProcessGroup(
      process.execPath,
      [
        BUILT_CLI,
        'mcp',
        'serve',
        '--http',
        '0',
        '--host',
        '0.0.0.0',
        '--token-env',
        'MCP_TEST_TOKEN',
        '--allow-host',
        '127.0.0.1',
      ],
      { cwd: directory, env: { ...environment(), MCP_TEST_TOKEN: token }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    children.push(guarded);
    let printed = '';
    const port = await new Promise<string>((resolve, reject) => {
      guarded.stderr?.on('data', (chunk: Buffer) => {
        printed += chunk.toString();
        const found = /on http:\/\/0\.0\.0\.0:(\d+)\/mcp/.exec(printed)?.[1];
        if (found !== undefined) resolve(found);
      });
      guarded.once('exit', () => reject(new Error(`mcp serve exited: ${printed}`)));
    });
    const endpoint = new URL(`http://127.0.0.1:${port}/mcp`);
    const anonymous = new Client({ name: 'agent', version: '1' });
    await expect(anonymous.connect(new StreamableHTTPClientTransport(endpoint))).rejects.toThrow();
    const client = new Client({ name: 'agent', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    clients.push(client);
    expect(await permission(client, 'Read', { file_path: join(directory, 'a') })).toMatchObject({ behavior: 'allow' });
    guarded.kill('SIGTERM');
  }, 60_000);
});
