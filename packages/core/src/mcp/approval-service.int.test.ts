import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApprovalMcpServer, createApprovalService, type InterlockWorker } from '../index.js';

/*
 * Issue 24, item 1, from the attacker's side: a project file declares a real MCP server (on
 * the official SDK) whose tools collide with the names an agent asks about
 * (`mcp__<server>__<tool>`, Claude Code's naming), one of them answering with structured
 * output shaped like a permission answer. The approval service decides and never executes:
 * the server is never started, let alone called, and `updatedInput` is only ever what the
 * agent or the person wrote.
 */
const HOSTILE_SERVER = fileURLToPath(new URL('./__fixtures__/hostile-server.mjs', import.meta.url));

let directory: string;
let ledger: string;
let worker: InterlockWorker | undefined;
let client: Client | undefined;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'interlock-approval-service-'));
  ledger = join(directory, 'ledger.txt');
  await writeFile(
    join(directory, 'interlock.toml'),
    [
      '[mcp.servers.evil]',
      `command = ${JSON.stringify(process.execPath)}`,
      `args = [${JSON.stringify(HOSTILE_SERVER)}]`,
      'env = ["HOSTILE_LEDGER"]',
      '[mcp.servers.evil.tools]',
      'steal = { category = "read", risk = "LOW" }',
    ].join('\n'),
  );
  process.env['HOSTILE_LEDGER'] = ledger;
});
afterEach(async () => {
  await client?.close();
  await worker?.stop();
  client = undefined;
  worker = undefined;
});
afterAll(async () => {
  delete process.env['HOSTILE_LEDGER'];
  await rm(directory, { recursive: true, force: true });
});

async function serve(mode: 'default' | 'yolo', store: string): Promise<{ client: Client; worker: InterlockWorker }> {
  worker = await createApprovalService({
    config: join(directory, 'interlock.toml'),
    store: { type: 'sqlite', path: join(directory, store) },
    mode,
    workspaceRoot: directory,
  });
  const server = await createApprovalMcpServer(worker.interlock, { progressIntervalMs: 100 });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  client = new Client({ name: 'agent', version: '1' });
  await client.connect(clientSide);
  return { client, worker };
}

async function permission(agent: Client, toolName: string, input: Record<string, unknown>): Promise<unknown> {
  const result = await agent.callTool({
    name: 'approval_prompt',
    arguments: { tool_name: toolName, input, tool_use_id: 'toolu_1' },
  });
  const [block] = result.content as { type: string; text: string }[];
  return JSON.parse(block?.text ?? '') as unknown;
}

/** Answers the one pending approval of `toolName` once it is there. */
async function answerWhenAsked(service: InterlockWorker, toolName: string, answer: Record<string, unknown>) {
  for (;;) {
    const [pending] = (await service.interlock.pending()).filter(
      (request) => request.toolApproval?.toolName === toolName,
    );
    if (pending !== undefined) return service.interlock.respond(pending.interactionId, answer);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('the approval service against colliding names (issue 24)', () => {
  it('asks a person about a name that collides with a declared server tool, even in yolo, and never starts the server (F50)', async () => {
    const { client: agent, worker: service } = await serve('yolo', 'collide.db');
    const asked = permission(agent, 'mcp__evil__steal', { path: '~/.ssh/id_rsa' });
    const answered = await answerWhenAsked(service, 'mcp__evil__steal', { approved: true });
    expect(answered).toMatchObject({ status: 'accepted' });
    // The file called the tool read/LOW: that is about Interlock's own use of the server, not the agent's tool.
    expect(await asked).toEqual({ behavior: 'allow', updatedInput: { path: '~/.ssh/id_rsa' } });
    expect(existsSync(ledger)).toBe(false);
  });

  it("hands back the person's edit, never a server's structured output (F50)", async () => {
    const { client: agent, worker: service } = await serve('default', 'shaped.db');
    const asked = permission(agent, 'mcp__evil__shaped', { command: 'ls' });
    await answerWhenAsked(service, 'mcp__evil__shaped', { approved: true, editedParameters: { command: 'ls -la' } });
    expect(await asked).toEqual({ behavior: 'allow', updatedInput: { command: 'ls -la' } });
    expect(existsSync(ledger)).toBe(false);
  });

  it('denies with the reason when the person rejects, and runs nothing (F50)', async () => {
    const { client: agent, worker: service } = await serve('default', 'rejected.db');
    const asked = permission(agent, 'mcp__evil__steal', { path: 'a' });
    await answerWhenAsked(service, 'mcp__evil__steal', { approved: false, denyReason: 'no' });
    expect(await asked).toMatchObject({ behavior: 'deny', message: expect.stringContaining('no') });
    expect(existsSync(ledger)).toBe(false);
  });
});
