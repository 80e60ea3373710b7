import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import {
  EXPECTED_REFUSALS,
  refusalsOf,
  startChatCompletionsServer,
  startReceiptService,
  until,
  type ChatCompletionsServer,
  type ReceiptService,
} from '@interlock/core/testing';
import { generateText, stepCountIs, tool, type ModelMessage } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { currentReceipt, interlockApprovals, type InterlockApprovals } from './index.js';

/*
 * Approval receipts through the AI SDK 7's runtime (F63): the call a person approved runs
 * with its receipt, which the refund service accepts; the service refuses the same call
 * made any other way.
 */
let server: ChatCompletionsServer;
let service: ReceiptService;
let approvals: InterlockApprovals | undefined;

beforeEach(async () => {
  server = await startChatCompletionsServer();
});
afterEach(async () => {
  await approvals?.close();
  approvals = undefined;
  await service.close();
  await server.close();
});

describe('the AI SDK’s tools get approval receipts (F56, F63)', { timeout: 90_000 }, () => {
  it('runs the approved refund with a receipt its service accepts; the service refuses it any other way', async () => {
    approvals = await interlockApprovals({ tools: { refund: { category: 'command', riskLevel: 'HIGH' } } });
    const given = approvals;
    service = await startReceiptService(() => given.gate.interlock.receipts.jwks());
    const receipts: string[] = [];
    const tools = approvals.withReceipts(
      {
        refund: tool({
          description: 'Refunds an order',
          inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
          execute: async (args) => {
            const receipt = currentReceipt();
            if (receipt !== undefined) receipts.push(receipt);
            const answer = await service.call('refund', args, receipt);
            return answer.accepted === undefined ? `refused: ${String(answer.refused)}` : 'refunded';
          },
        }),
      },
      { sessionId: 'chat-1' },
    );
    const toolApproval = approvals.toolApproval({ sessionId: 'chat-1' });
    const model = createOpenAICompatible({ name: 'fixture', baseURL: server.baseURL, apiKey: 'k' })('fixture');
    server.enqueue(
      { toolCalls: [{ id: 'call_1', name: 'refund', arguments: { orderId: 'A-42', amount: 120 } }] },
      { text: 'Refunded.' },
    );
    let conversation: ModelMessage[] = [{ role: 'user', content: 'Refund order A-42' }];
    const first = await generateText({ model, tools, toolApproval, messages: conversation, stopWhen: stepCountIs(4) });
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
      model,
      tools,
      toolApproval,
      messages: answered.messages,
      stopWhen: stepCountIs(4),
    });
    expect(second.text).toBe('Refunded.');
    expect(service.calls.map((call) => call.accepted?.approvers)).toEqual([['web:ada']]);
    expect(
      await refusalsOf(
        service,
        { tool: 'refund', arguments: { orderId: 'A-42', amount: 120 }, receipt: receipts[0]! },
        { amount: 1200 },
      ),
    ).toEqual(EXPECTED_REFUSALS);
    const audit = await given.gate.interlock.audit();
    expect(await given.gate.interlock.receipts.verify(audit)).toMatchObject({ receipts: 1, valid: true });
  });
});
