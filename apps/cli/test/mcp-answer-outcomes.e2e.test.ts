import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createInterlock, openStore, type StoreOptions } from '@interlock/core';
import { startCommitCutter } from '@interlock/core/testing';
import type { UserInteractionRequest } from '@interlock/sdk-types';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BUILT_CLI } from './built-cli.js';
import { cliIn, jsonOf } from './cross-process.js';

/*
 * What an agent asking `interlock mcp serve` gets for each outcome of a person's answer
 * (issue 28; docs/mcp.md, "What an answer came to"): the serve process and the people who
 * answer (`interlock respond`, another process such as the web inbox) are real processes
 * on one store, SQLite or PostgreSQL; the agent is the official MCP SDK's client.
 */

const BASE_URL = process.env['INTERLOCK_TEST_POSTGRES_URL'] ?? '';
const schemas: string[] = [];
const clients: Client[] = [];
const closers: (() => Promise<unknown>)[] = [];
beforeAll(() => assertBuilt());
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
});
afterAll(async () => {
  if (schemas.length === 0) return;
  const admin = new pg.Client({ connectionString: BASE_URL });
  await admin.connect();
  for (const schema of schemas) {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}_jobs" CASCADE`);
  }
  await admin.end();
});

type Answer = { behavior: 'allow'; updatedInput: Record<string, unknown> } | { behavior: 'deny'; message: string };

/** A project directory whose interlock.toml names the store; `spec` is that store as --store takes it. */
async function project(kind: 'sqlite' | 'postgres') {
  const directory = await mkdtemp(join(tmpdir(), 'interlock-mcp-outcomes-'));
  if (kind === 'sqlite') {
    await writeFile(join(directory, 'interlock.toml'), `[store]\ntype = "sqlite"\npath = "interlock.db"\n`);
    const options: StoreOptions = { type: 'sqlite', path: join(directory, 'interlock.db') };
    return { directory, options, spec: `sqlite:${join(directory, 'interlock.db')}` };
  }
  const schema = `mcp_outcomes_${randomBytes(5).toString('hex')}`;
  schemas.push(schema);
  const url = new URL(BASE_URL);
  url.searchParams.set('schema', schema);
  const options: StoreOptions = { type: 'postgres', url: BASE_URL, schema };
  return { directory, options, spec: url.toString() };
}

/** The agent: an MCP client of `interlock mcp serve` on the project's store. */
async function agent(directory: string, spec: string, extra: string[] = []): Promise<Client> {
  const client = new Client({ name: 'agent', version: '1' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BUILT_CLI, 'mcp', 'serve', '--store', spec, '--progress-interval', '200', ...extra],
      cwd: directory,
      env: { ...process.env, INTERLOCK_STORE: '' } as Record<string, string>,
      stderr: 'ignore',
    }),
  );
  clients.push(client);
  return client;
}

async function permission(client: Client, toolName: string, input: Record<string, unknown>): Promise<Answer> {
  const result = await client.callTool(
    { name: 'approval_prompt', arguments: { tool_name: toolName, input, tool_use_id: `toolu_${toolName}` } },
    undefined,
    { timeout: 120_000, resetTimeoutOnProgress: true },
  );
  return JSON.parse((result.content as { text: string }[])[0]?.text ?? '') as Answer;
}

/** The request the agent's call waits on, once it is stored. */
async function waitingRequest(options: StoreOptions, toolName: string): Promise<UserInteractionRequest> {
  const store = await openStore(options);
  try {
    for (const started = Date.now(); Date.now() - started < 30_000;) {
      const found = (await store.listInteractions({ status: 'pending' })).find(
        (interaction) => interaction.request.toolApproval?.toolName === toolName,
      );
      if (found !== undefined) return found.request;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`no call of ${toolName} waits`);
  } finally {
    await store.close();
  }
}

function respond(directory: string, spec: string, interactionId: string, ...answer: string[]) {
  return cliIn(directory, ['respond', interactionId, ...answer, '--store', spec, '--json']);
}

describe('what an agent asking interlock mcp serve gets for each outcome of an answer (issue 28, F50)', () => {
  it('gives a person as long as the agent waits by default, and keeps the call open through an edit the rules refuse', async () => {
    const { directory, options, spec } = await project('sqlite');
    const client = await agent(directory, spec);
    const asked = permission(client, 'Write', { file_path: join(directory, 'notes.md'), content: 'hi' });
    const request = await waitingRequest(options, 'Write');
    // No deadline: the agent's own wait (kept alive by progress) is the only one.
    expect(request).toMatchObject({ timeout: 0, deadline: null });

    const outside = await respond(
      directory,
      spec,
      request.interactionId,
      'edit',
      '{"file_path":"/etc/hosts","content":"x"}',
    );
    expect(outside.exitCode).toBe(1);
    expect(jsonOf(outside)).toMatchObject({
      result: 'refused',
      message: expect.stringContaining('path:outside-workspace'),
    });
    const inside = await respond(
      directory,
      spec,
      request.interactionId,
      'edit',
      JSON.stringify({ file_path: join(directory, 'docs.md'), content: 'hi' }),
    );
    expect(jsonOf(inside)).toMatchObject({ result: 'accepted', continuation: 'scheduled' });
    expect(await asked).toEqual({
      behavior: 'allow',
      updatedInput: { file_path: join(directory, 'docs.md'), content: 'hi' },
    });
  }, 90_000);

  it('answers with the first person’s decision; the second is told who answered', async () => {
    const { directory, options, spec } = await project('sqlite');
    const client = await agent(directory, spec);
    const asked = permission(client, 'WebFetch', { url: 'https://example.com', prompt: 'read' });
    const request = await waitingRequest(options, 'WebFetch');
    const inbox = await createInterlock({ store: options, continueIn: 'workers-only', recoverOnStart: false });
    closers.push(() => inbox.close());
    await inbox.respond(request.interactionId, { approved: false, denyReason: 'not today' }, { responder: 'web:ada' });
    const second = await respond(directory, spec, request.interactionId, 'approve');
    expect(second.exitCode).toBe(4);
    expect(jsonOf(second)).toMatchObject({ result: 'already_answered', answeredBy: 'web:ada' });
    expect(await asked).toEqual({ behavior: 'deny', message: 'web:ada rejected it: not today' });
  }, 90_000);

  it('denies the call when nobody answers within --answer-timeout, and a late answer is expired', async () => {
    const { directory, options, spec } = await project('sqlite');
    const client = await agent(directory, spec, ['--answer-timeout', '1s']);
    const asked = permission(client, 'Edit', { file_path: join(directory, 'a.md'), old_string: 'a', new_string: 'b' });
    const request = await waitingRequest(options, 'Edit');
    expect(request.timeout).toBe(1_000);
    expect(await asked).toEqual({
      behavior: 'deny',
      message: expect.stringMatching(/^no person approved it \(timeout\): /),
    });
    const late = await respond(directory, spec, request.interactionId, 'approve');
    expect(late.exitCode).toBe(5);
  }, 90_000);

  it('keeps the agent waiting while an answer’s commit was cut off, and answers once it is stored', async () => {
    const { directory, options, spec } = await project('postgres');
    const client = await agent(directory, spec);
    const asked = permission(client, 'Write', { file_path: join(directory, 'cut.md'), content: 'x' });
    const request = await waitingRequest(options, 'Write');
    const cutter = await startCommitCutter(BASE_URL);
    closers.push(() => cutter.close());
    const through = new URL(cutter.url);
    through.search = new URL(spec).search;
    const cut = cutter.arm();
    const unknown = await respond(directory, through.toString(), request.interactionId, 'reject', '--reason', 'no');
    await cut;
    expect(unknown.exitCode).toBe(6);
    const again = await respond(directory, spec, request.interactionId, 'reject', '--reason', 'no');
    expect(jsonOf(again)).toMatchObject({ result: 'accepted' });
    expect(await asked).toEqual({ behavior: 'deny', message: expect.stringMatching(/rejected it: no$/) });
  }, 90_000);
});
