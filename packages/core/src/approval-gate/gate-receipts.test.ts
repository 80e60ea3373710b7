import { afterEach, describe, expect, it } from 'vitest';
import { verifyReceipt } from '@interlock/receipts';
import type { ApprovalGate } from './approval-gate.js';
import { createApprovalGate } from './create-approval-gate.js';
import { until } from '../testing/until.js';

const tools = {
  read_file: { category: 'read' as const, riskLevel: 'LOW' as const },
  write_file: { category: 'write' as const, riskLevel: 'MEDIUM' as const, pathArgument: 'path' },
};

let gate: ApprovalGate | undefined;
afterEach(async () => {
  await gate?.close();
  gate = undefined;
});

describe('the approval gate’s receipts (F56, F63)', () => {
  it('gives the call a decision lets run a receipt its service accepts, and no other call one', async () => {
    gate = await createApprovalGate({ name: 'receipts', tools });
    const read = { toolCallId: 'c1', toolName: 'read_file', arguments: { path: 'README.md' } };
    const [decision] = (await gate.decide([read])).decisions;
    const receipt = await gate.receipt(decision!, read);
    const jwks = await gate.interlock.receipts.jwks();
    const claims = await verifyReceipt(receipt, { jwks, tool: 'read_file', arguments: read.arguments });
    expect(claims).toMatchObject({ decidedBy: 'category:read', approvers: [], thread: decision!.threadId });
    expect(
      await gate.receipt(decision!, { toolName: 'read_file', arguments: { path: '/etc/shadow' } }),
    ).toBeUndefined();
    expect(await gate.receipt(decision!, { toolName: 'write_file', arguments: read.arguments })).toBeUndefined();
    const entries = await gate.interlock.audit({ threadId: decision!.threadId });
    expect(await gate.interlock.receipts.verify(entries)).toEqual({ receipts: 1, valid: true, problems: [] });
  });

  it('binds the receipt of an edited approval to the edited arguments and names the approver', async () => {
    gate = await createApprovalGate({ name: 'receipts', tools });
    const write = { toolCallId: 'c1', toolName: 'write_file', arguments: { path: 'notes.md', content: 'draft' } };
    const deciding = gate.decide([write]);
    const [question] = await until(
      'the question',
      () => gate!.interlock.pending(),
      (asked) => asked.length > 0,
    );
    await gate.interlock.respond(
      question!.interactionId,
      { approved: true, editedParameters: { path: 'notes.md', content: 'final' } },
      { responder: 'web:ada' },
    );
    const [decision] = (await deciding).decisions;
    expect(await gate.receipt(decision!, write)).toBeUndefined();
    const edited = { toolName: 'write_file', arguments: { path: 'notes.md', content: 'final' } };
    const receipt = await gate.receipt(decision!, edited);
    const jwks = await gate.interlock.receipts.jwks();
    expect(await verifyReceipt(receipt, { jwks, tool: 'write_file', arguments: edited.arguments })).toMatchObject({
      approvers: ['web:ada'],
      decidedBy: 'person',
    });
    const entries = await gate.interlock.audit({ threadId: decision!.threadId });
    expect((await gate.interlock.receipts.verify(entries)).valid).toBe(true);
  });
});
