import {
  EXPECTED_REFUSALS,
  refusalsOf,
  startChatCompletionsServer,
  startReceiptService,
  until,
  type ChatCompletionsServer,
  type ReceiptService,
} from '@interlock/core/testing';
import { Agent, OpenAIChatCompletionsModel, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { currentReceipt, interlockAgent, type InterlockAgent } from './index.js';

/*
 * Approval receipts through the OpenAI Agents SDK's runtime (F63): the refund a person
 * approved runs with its receipt, which the refund service accepts; the service refuses the
 * same call made any other way.
 */
setTracingDisabled(true);
let server: ChatCompletionsServer;
let service: ReceiptService;
let guarded: InterlockAgent<Agent> | undefined;

beforeEach(async () => {
  server = await startChatCompletionsServer();
});
afterEach(async () => {
  await guarded?.close();
  guarded = undefined;
  await service.close();
  await server.close();
});

describe('the OpenAI Agents SDK’s tools get approval receipts (F56, F63)', { timeout: 90_000 }, () => {
  it('runs the approved refund with a receipt its service accepts; the service refuses it any other way', async () => {
    const receipts: string[] = [];
    const agent = new Agent({
      name: 'refunds',
      instructions: 'You refund orders.',
      model: new OpenAIChatCompletionsModel(new OpenAI({ baseURL: server.baseURL, apiKey: 'k', maxRetries: 0 }), 'm'),
      tools: [
        tool({
          name: 'refund',
          description: 'Refunds an order',
          parameters: z.object({ orderId: z.string(), amount: z.number() }),
          execute: async (args) => {
            const receipt = currentReceipt();
            if (receipt !== undefined) receipts.push(receipt);
            const answer = await service.call('refund', args, receipt);
            return answer.accepted === undefined ? `refused: ${String(answer.refused)}` : 'refunded';
          },
        }),
      ],
    });
    const finished: unknown[] = [];
    guarded = await interlockAgent({
      agent,
      tools: { refund: { category: 'command', riskLevel: 'HIGH' } },
      onFinished: (result) => void finished.push(result.finalOutput),
    });
    const gate = guarded.gate;
    service = await startReceiptService(() => gate.interlock.receipts.jwks());
    server.enqueue(
      { toolCalls: [{ id: 'call_1', name: 'refund', arguments: { orderId: 'A-42', amount: 120 } }] },
      { text: 'Refunded.' },
    );
    expect(await guarded.run('Refund order A-42')).toMatchObject({ status: 'paused' });
    const [question] = await gate.interlock.pending();
    await gate.interlock.respond(question!.interactionId, { approved: true }, { responder: 'web:ada' });
    await until(
      'the run to finish',
      () => finished,
      (outputs) => outputs.length > 0,
    );
    expect(finished).toEqual(['Refunded.']);
    expect(service.calls.map((call) => call.accepted?.approvers)).toEqual([['web:ada']]);
    expect(
      await refusalsOf(
        service,
        { tool: 'refund', arguments: { orderId: 'A-42', amount: 120 }, receipt: receipts[0]! },
        { amount: 1200 },
      ),
    ).toEqual(EXPECTED_REFUSALS);
    // The refund's receipt, and the one of the gate's own tool that continued the run: each verifies.
    expect(await gate.interlock.receipts.verify(await gate.interlock.audit())).toEqual({
      receipts: 2,
      valid: true,
      problems: [],
    });
  });
});
