import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSdkMcpServer, tool } from '@anthropic-ai/claude-agent-sdk';
import { ofType } from '@interlock/core';
import { EXPECTED_REFUSALS, refusalsOf, startReceiptService, type ReceiptService } from '@interlock/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { claudeOptions, runToEnd } from './__fixtures__/claude-code.js';
import { startMessagesServer, type MessagesServer } from './__fixtures__/messages-server.js';
import { interlockPermissions, type InterlockPermissions } from './index.js';

/*
 * Approval receipts through Claude Code (F63): an MCP tool of the app (an SDK MCP server)
 * takes the receipt of the call a person approved and forwards it; its service accepts it
 * and refuses the same call made any other way.
 */
let server: MessagesServer;
let service: ReceiptService | undefined;
let dir: string;
let permissions: InterlockPermissions | undefined;

beforeEach(async () => {
  server = await startMessagesServer();
  dir = await mkdtemp(join(tmpdir(), 'interlock-claude-receipts-'));
  await mkdir(join(dir, 'home'));
});
afterEach(async () => {
  await permissions?.close();
  permissions = undefined;
  await service?.close();
  await server.close();
});

describe('Claude Code’s MCP tools get approval receipts (F56, F63)', { timeout: 90_000 }, () => {
  it('runs the approved refund with a receipt its service accepts; the service refuses it any other way', async () => {
    permissions = await interlockPermissions({
      workspaceRoot: dir,
      tools: { mcp__billing__refund: { category: 'command', riskLevel: 'HIGH' } },
    });
    const given = permissions;
    service = await startReceiptService(() => given.gate.interlock.receipts.jwks());
    const refunds = service;
    const receipts: string[] = [];
    const billing = createSdkMcpServer({
      name: 'billing',
      tools: [
        tool('refund', 'Refunds an order', { orderId: z.string(), amount: z.number() }, async (args, extra) => {
          const receipt = given.receiptFor(extra);
          if (receipt !== undefined) receipts.push(receipt);
          const answer = await refunds.call('mcp__billing__refund', args, receipt);
          return { content: [{ type: 'text', text: answer.accepted === undefined ? 'refused' : 'refunded' }] };
        }),
      ],
    });
    server.enqueue(
      { toolUses: [{ id: 'toolu_refund', name: 'mcp__billing__refund', input: { orderId: 'A-42', amount: 120 } }] },
      { text: 'Refunded.' },
    );
    const answering = given.gate.interlock.events$.pipe(ofType('USER_INTERACTION_REQUESTED')).subscribe((event) => {
      void given.gate.interlock.respond(event.interactionId, { approved: true }, { responder: 'web:ada' });
    });
    try {
      const options = claudeOptions({ dir, server }, { canUseTool: given.canUseTool, mcpServers: { billing } });
      expect(await runToEnd(options, 'Refund order A-42')).toBe('Refunded.');
    } finally {
      answering.unsubscribe();
    }
    expect(refunds.calls.map((call) => call.accepted?.approvers)).toEqual([['web:ada']]);
    expect(
      await refusalsOf(
        refunds,
        { tool: 'mcp__billing__refund', arguments: { orderId: 'A-42', amount: 120 }, receipt: receipts[0]! },
        { amount: 1200 },
      ),
    ).toEqual(EXPECTED_REFUSALS);
    expect(await given.gate.interlock.receipts.verify(await given.gate.interlock.audit())).toMatchObject({
      receipts: 1,
      valid: true,
    });
  });
});
