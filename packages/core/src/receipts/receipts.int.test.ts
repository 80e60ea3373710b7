import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { verifyReceipt, type ReceiptClaims } from '@interlock/receipts';
import { linearWorkflow } from '../__fixtures__/workflows.js';
import { createInterlock, defineTool, type Interlock } from '../index.js';
import {
  EXPECTED_REFUSALS,
  refusalsOf,
  scriptedModel,
  startReceiptService,
  type ReceiptService,
} from '../testing/index.js';

/*
 * Approval receipts through Interlock's own tools (F63): a call that runs on an approval
 * gets a receipt its service checks; the service refuses the call made any other way.
 */

let interlock: Interlock | undefined;
let service: ReceiptService | undefined;
afterEach(async () => {
  await interlock?.close();
  await service?.close();
  interlock = undefined;
  service = undefined;
});

/** A refund tool that calls its service with the receipt it was handed. */
function refundTool(at: () => ReceiptService) {
  const seen: { receipt?: string; approval?: unknown }[] = [];
  const tool = defineTool({
    name: 'refund',
    description: 'Refunds an order',
    category: 'write',
    riskLevel: 'HIGH',
    parameters: z.object({ orderId: z.string(), amount: z.number() }),
    execute: async (args, context) => {
      seen.push({ ...(context.receipt === undefined ? {} : { receipt: context.receipt }), approval: context.approval });
      const call = await at().call('refund', args, context.receipt);
      if (call.accepted === undefined) throw new Error(`the refund service refused: ${String(call.refused)}`);
      return 'refunded';
    },
  });
  return { tool, seen };
}

async function askedRefund(options: { quorum?: number; amount?: number } = {}) {
  const { tool, seen } = refundTool(() => service as ReceiptService);
  interlock = await createInterlock({
    tools: [tool],
    models: {
      default: scriptedModel([
        {
          text: '',
          toolCalls: [{ id: 'c1', name: 'refund', arguments: { orderId: 'A-42', amount: options.amount ?? 120 } }],
        },
        'done',
      ]),
    },
  });
  const ready = interlock;
  service = await startReceiptService(() => ready.receipts.jwks());
  const workflow = interlock.registerWorkflow({
    ...linearWorkflow([{ id: 'agent', type: 'LLM', config: { tools: ['refund'] } }], { id: 'refunds' }),
    config: {
      toolApproval: {
        approvalTimeout: '1h',
        ...(options.quorum === undefined ? {} : { quorum: { required: options.quorum } }),
      },
    },
  });
  const thread = await interlock.start(workflow, { channel: 'inbox', session: { requestedBy: 'web:rita' } });
  expect((await thread.done()).status).toBe('waiting');
  const [question] = await interlock.pending();
  return { threadId: thread.threadId, interactionId: question!.interactionId, seen };
}

async function completed(threadId: string) {
  await vi.waitFor(async () => expect((await interlock!.thread(threadId))?.status).toBe('completed'));
}

describe('approval receipts of Interlock’s own tools (F63)', () => {
  it('hands the approved call its receipt, which its service accepts; the service refuses the call made any other way', async () => {
    const { threadId, interactionId, seen } = await askedRefund();
    await interlock!.respond(interactionId, { approved: true }, { responder: 'web:ada' });
    await completed(threadId);
    const [accepted] = service!.calls;
    expect(accepted?.accepted).toMatchObject({
      tool: 'refund',
      thread: threadId,
      call: 'c1',
      approvers: ['web:ada'],
      decidedBy: 'person',
      iss: 'interlock',
    });
    const claims = accepted!.accepted as ReceiptClaims;
    // It names the tool's definition and the audit entry that records the approval.
    const entries = await interlock!.audit({ threadId });
    const { auditDigest } = await import('../audit/audit-chain.js');
    const approval = entries.find((entry) => entry.outcome === 'allow');
    expect(claims.audit).toBe(auditDigest(approval!));
    const receipt = seen[0]!.receipt!;
    expect(
      await refusalsOf(
        service!,
        { tool: 'refund', arguments: { orderId: 'A-42', amount: 120 }, receipt },
        { amount: 1200 },
      ),
    ).toEqual(EXPECTED_REFUSALS);
    // The audit holds the receipt and verifies it.
    const exported = await interlock!.exportAudit({ threadId });
    expect(exported.receipts?.map((kept) => kept.token)).toEqual([receipt]);
    expect(await interlock!.receipts.verify(entries)).toEqual({ receipts: 1, valid: true, problems: [] });
  });

  it('binds the receipt to the edited arguments when the approver edited them (F19, F63)', async () => {
    const { threadId, interactionId, seen } = await askedRefund({ amount: 1200 });
    await interlock!.respond(
      interactionId,
      { approved: true, editedParameters: { orderId: 'A-42', amount: 120 } },
      { responder: 'web:ada' },
    );
    await completed(threadId);
    expect(service!.calls[0]?.accepted).toMatchObject({ approvers: ['web:ada'] });
    const jwks = await interlock!.receipts.jwks();
    const receipt = seen[0]!.receipt!;
    await expect(
      verifyReceipt(receipt, { jwks, tool: 'refund', arguments: { orderId: 'A-42', amount: 1200 } }),
    ).rejects.toMatchObject({ code: 'RECEIPT_WRONG_ARGUMENTS' });
    expect((await interlock!.receipts.verify(await interlock!.audit({ threadId }))).valid).toBe(true);
  });

  it('names both approvers of a two-person approval, and the audit verifies the receipt (F51, F63)', async () => {
    const { threadId, interactionId, seen } = await askedRefund({ quorum: 2 });
    await interlock!.respond(interactionId, { approved: true }, { responder: 'web:ada' });
    await interlock!.respond(interactionId, { approved: true }, { responder: 'web:grace' });
    await completed(threadId);
    expect(service!.calls[0]?.accepted?.approvers).toEqual(['web:ada', 'web:grace']);
    expect(seen).toHaveLength(1);
    expect(await interlock!.receipts.verify(await interlock!.audit({ threadId }))).toMatchObject({
      receipts: 1,
      valid: true,
    });
  });

  it('gives a call no receipt when receipts are off', async () => {
    const { tool, seen } = refundTool(() => service as ReceiptService);
    interlock = await createInterlock({
      tools: [tool],
      receipts: { enabled: false },
      approval: { mode: 'yolo' },
      models: {
        default: scriptedModel([
          { text: '', toolCalls: [{ id: 'c1', name: 'refund', arguments: { orderId: 'A-1', amount: 1 } }] },
          'done',
        ]),
      },
    });
    const ready = interlock;
    service = await startReceiptService(() => ready.receipts.jwks());
    const workflow = interlock.registerWorkflow(
      linearWorkflow([{ id: 'agent', type: 'LLM', config: { tools: ['refund'] } }], { id: 'refunds' }),
    );
    await (await interlock.start(workflow)).done();
    expect(seen).toEqual([{ approval: undefined }]);
    expect(service.calls[0]?.refused).toBe('RECEIPT_MISSING');
  });
});
