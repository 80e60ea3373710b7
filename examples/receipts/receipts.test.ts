import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterlock, httpFetchTool, type Interlock } from '@interlock/core';
import { forgedReceipt, scriptedModel, until } from '@interlock/core/testing';
import {
  generateReceiptKey,
  jwksOf,
  RECEIPT_HEADER,
  RECEIPT_META_KEY,
  signingKeyOf,
  type ReceiptClaims,
} from '@interlock/receipts';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { refundService } from './refund-service.js';

/*
 * The receipts examples (F63): the Express middleware in front of a service Interlock's
 * http_fetch tool reads, and the MCP server over stdio, each accept the call a person
 * approved and refuse it made any other way.
 */
const MCP_SERVER = fileURLToPath(new URL('./mcp-server.ts', import.meta.url));
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as ReceiptClaims;

/** Runs one model turn calling `call`, approves it as web:ada, and returns the thread and the receipt kept for it. */
async function approvedRun(interlock: Interlock, call: { name: string; arguments: Record<string, unknown> }) {
  const workflow = interlock.registerWorkflow({
    id: 'agent',
    name: 'agent',
    version: '1',
    config: { toolApproval: { approvalTimeout: '1h' } },
    nodes: [
      { id: 'start', type: 'START' },
      { id: 'agent', type: 'LLM', config: { tools: [call.name] } },
      { id: 'end', type: 'END' },
    ],
    edges: [
      { from: 'start', to: 'agent' },
      { from: 'agent', to: 'end' },
    ],
  });
  const thread = await interlock.start(workflow, { channel: 'inbox' });
  expect((await thread.done()).status).toBe('waiting');
  const [question] = await interlock.pending();
  const answered = await interlock.respond(question!.interactionId, { approved: true }, { responder: 'web:ada' });
  expect(answered).toMatchObject({ status: 'accepted' });
  await until(
    'the thread to end',
    () => interlock.thread(thread.threadId),
    (record) => record?.status === 'completed',
  );
  const { receipts } = await interlock.exportAudit({ threadId: thread.threadId });
  return { threadId: thread.threadId, receipt: receipts?.[0]?.token ?? '' };
}

describe('an Express service behind requireReceipt, read by http_fetch (F63)', () => {
  it('accepts the approved read and refuses it without a receipt, edited, to another route, expired, replayed or forged', async () => {
    // The service listens first: the model's call names its URL.
    const http: Server = createServer();
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => http.close(() => resolve())));
    const base = `http://127.0.0.1:${String((http.address() as AddressInfo).port)}`;
    const interlock = await createInterlock({
      tools: [httpFetchTool],
      models: {
        default: scriptedModel([
          { text: '', toolCalls: [{ id: 'c1', name: 'http_fetch', arguments: { url: `${base}/orders/A-42` } }] },
          'The order is paid.',
        ]),
      },
    });
    closers.push(() => interlock.close());
    // The service's clock: the wall clock, until the test moves it.
    let moved: number | undefined;
    const { app } = refundService({
      jwks: await interlock.receipts.jwks(),
      publicUrl: () => base,
      now: () => moved ?? Date.now(),
    });
    http.on('request', app);

    const results: unknown[] = [];
    interlock.events$.subscribe((event) => {
      if (event.type === 'TOOL_CALL_COMPLETED') results.push(event.result);
    });
    const { receipt } = await approvedRun(interlock, { name: 'http_fetch', arguments: { url: `${base}/orders/A-42` } });
    expect(results).toEqual([{ status: 200, body: JSON.stringify({ order: 'A-42', status: 'paid' }) }]);
    expect(claimsOf(receipt)).toMatchObject({ tool: 'http_fetch', approvers: ['web:ada'], decidedBy: 'person' });

    const code = async (path: string, token?: string, init: RequestInit = {}) => {
      const response = await fetch(`${base}${path}`, {
        ...init,
        headers: { ...(token === undefined ? {} : { [RECEIPT_HEADER]: token }), 'content-type': 'application/json' },
      });
      return ((await response.json()) as { code?: string }).code ?? String(response.status);
    };
    expect(await code('/orders/A-42')).toBe('RECEIPT_MISSING');
    expect(await code('/orders/A-43', receipt)).toBe('RECEIPT_WRONG_ARGUMENTS');
    expect(
      await code('/refund', receipt, { method: 'POST', body: JSON.stringify({ orderId: 'A-42', amount: 1 }) }),
    ).toBe('RECEIPT_WRONG_TOOL');
    moved = (claimsOf(receipt).exp + 1) * 1000;
    expect(await code('/orders/A-42', receipt)).toBe('RECEIPT_EXPIRED');
    moved = undefined;
    expect(await code('/orders/A-42', receipt)).toBe('RECEIPT_REPLAYED');
    expect(await code('/orders/A-42', await forgedReceipt(receipt))).toBe('RECEIPT_KEY_UNKNOWN');
    // The audit holds the receipt and verifies it against the entry it names.
    expect(await interlock.receipts.verify(await interlock.audit())).toMatchObject({ receipts: 1, valid: true });
  });
});

describe('an MCP server over stdio that checks receipts (F63)', () => {
  it('accepts the approved refund and refuses it without a receipt, edited, to another tool, expired, replayed or forged', async () => {
    const pair = await generateReceiptKey();
    const seen = join(await mkdtemp(join(tmpdir(), 'interlock-receipts-')), 'seen');
    const env = { INTERLOCK_JWKS: JSON.stringify(jwksOf([pair.publicJwk])), RECEIPTS_SEEN_FILE: seen };
    const interlock = await createInterlock({
      receipts: { key: pair.privateJwk },
      mcpServers: [
        { name: 'billing', transport: { type: 'stdio', command: process.execPath, args: [MCP_SERVER], env } },
      ],
      models: {
        default: scriptedModel([
          {
            text: '',
            toolCalls: [{ id: 'c1', name: 'mcp__billing__refund', arguments: { orderId: 'A-42', amount: 120 } }],
          },
          'Refunded.',
        ]),
      },
    });
    closers.push(() => interlock.close());
    const results: unknown[] = [];
    interlock.events$.subscribe((event) => {
      if (event.type === 'TOOL_CALL_COMPLETED') results.push(event.result);
      if (event.type === 'TOOL_CALL_FAILED') results.push(event.message);
    });
    const args = { orderId: 'A-42', amount: 120 };
    const { receipt } = await approvedRun(interlock, { name: 'mcp__billing__refund', arguments: args });
    expect(results).toEqual(['refunded A-42, approved by web:ada']);

    // Another instance of the server, sharing its seen-store: the calls the agent's host could make itself.
    const client = new Client({ name: 'direct', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [MCP_SERVER], env, stderr: 'ignore' }),
    );
    closers.push(() => client.close());
    const said = async (name: string, given: Record<string, unknown>, token?: string) => {
      const result = await client.callTool({
        name,
        arguments: given,
        ...(token === undefined ? {} : { _meta: { [RECEIPT_META_KEY]: token } }),
      });
      const [block] = result.content as { text: string }[];
      return result.isError === true ? block!.text.split(':')[0] : 'accepted';
    };
    expect(await said('refund', args)).toBe('RECEIPT_MISSING');
    expect(await said('refund', { ...args, amount: 1200 }, receipt)).toBe('RECEIPT_WRONG_ARGUMENTS');
    expect(await said('cancel', args, receipt)).toBe('RECEIPT_WRONG_TOOL');
    const key = await signingKeyOf(pair);
    const expired = await forgedReceipt(receipt, { key, issuedAt: Date.now() - 3_600_000 });
    expect(await said('refund', args, expired)).toBe('RECEIPT_EXPIRED');
    expect(await said('refund', args, receipt)).toBe('RECEIPT_REPLAYED');
    expect(await said('refund', args, await forgedReceipt(receipt))).toBe('RECEIPT_KEY_UNKNOWN');
  });
});
