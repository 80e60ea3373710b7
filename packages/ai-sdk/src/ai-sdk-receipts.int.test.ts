import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { until } from '@interlock/core/testing';
import { chatModelPerTest, refundDesk, REFUND_TURNS } from '@interlock/testing-adapters';
import { generateText, stepCountIs, tool, type ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { currentReceipt, interlockApprovals } from './index.js';

/*
 * Approval receipts through the AI SDK 7's runtime (F63): the call a person approved runs
 * with its receipt, which the refund service accepts; the service refuses the same call
 * made any other way.
 */
const desk = refundDesk();
const model = chatModelPerTest();

describe('the AI SDK’s tools get approval receipts (F56, F63)', { timeout: 90_000 }, () => {
  it('runs the approved refund with a receipt its service accepts; the service refuses it any other way', async () => {
    const approvals = model.closing(
      await interlockApprovals({ tools: { refund: { category: 'command', riskLevel: 'HIGH' } } }),
    );
    const given = approvals;
    await desk.open(() => given.gate.interlock.receipts.jwks());
    const tools = approvals.withReceipts(
      {
        refund: tool({
          description: 'Refunds an order',
          inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
          execute: (args) => desk.refund(args, currentReceipt()),
        }),
      },
      { sessionId: 'chat-1' },
    );
    const toolApproval = approvals.toolApproval({ sessionId: 'chat-1' });
    const fixture = createOpenAICompatible({ name: 'fixture', baseURL: model.server.baseURL, apiKey: 'k' })('fixture');
    model.server.enqueue(...REFUND_TURNS);
    let conversation: ModelMessage[] = [{ role: 'user', content: 'Refund order A-42' }];
    const first = await generateText({
      model: fixture,
      tools,
      toolApproval,
      messages: conversation,
      stopWhen: stepCountIs(4),
    });
    conversation = [...conversation, ...first.response.messages];
    const waiting = await approvals.respond(conversation, { sessionId: 'chat-1' });
    expect(waiting.status).toBe('waiting');
    const [question] = await until(
      'the question',
      () => given.gate.interlock.pending(),
      (asked) => asked.length > 0,
    );
    await given.gate.interlock.respond(question!.interactionId, { approved: true }, { responder: 'web:ada' });
    const answered = await approvals.respond(conversation, { sessionId: 'chat-1', wait: true });
    if (answered.status !== 'ready') throw new Error('the answer is not ready');
    const second = await generateText({
      model: fixture,
      tools,
      toolApproval,
      messages: answered.messages,
      stopWhen: stepCountIs(4),
    });
    expect(second.text).toBe('Refunded.');
    await desk.expectOnlyTheApprovedRefund();
    const audit = await given.gate.interlock.audit();
    expect(await given.gate.interlock.receipts.verify(audit)).toMatchObject({ receipts: 1, valid: true });
  });
});
