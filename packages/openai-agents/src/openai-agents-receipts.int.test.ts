import { until } from '@interlock/core/testing';
import { chatModelPerTest, refundDesk, REFUND_TURNS } from '@interlock/testing-adapters';
import { Agent, OpenAIChatCompletionsModel, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { currentReceipt, interlockAgent } from './index.js';

/*
 * Approval receipts through the OpenAI Agents SDK's runtime (F63): the refund a person
 * approved runs with its receipt, which the refund service accepts; the service refuses the
 * same call made any other way.
 */
setTracingDisabled(true);
const desk = refundDesk();
const model = chatModelPerTest();

describe('the OpenAI Agents SDK’s tools get approval receipts (F56, F63)', { timeout: 90_000 }, () => {
  it('runs the approved refund with a receipt its service accepts; the service refuses it any other way', async () => {
    const agent = new Agent({
      name: 'refunds',
      instructions: 'You refund orders.',
      model: new OpenAIChatCompletionsModel(
        new OpenAI({ baseURL: model.server.baseURL, apiKey: 'k', maxRetries: 0 }),
        'm',
      ),
      tools: [
        tool({
          name: 'refund',
          description: 'Refunds an order',
          parameters: z.object({ orderId: z.string(), amount: z.number() }),
          execute: (args) => desk.refund(args, currentReceipt()),
        }),
      ],
    });
    const finished: unknown[] = [];
    const guarded = model.closing(
      await interlockAgent({
        agent,
        tools: { refund: { category: 'command', riskLevel: 'HIGH' } },
        onFinished: (result) => void finished.push(result.finalOutput),
      }),
    );
    const gate = guarded.gate;
    await desk.open(() => gate.interlock.receipts.jwks());
    model.server.enqueue(...REFUND_TURNS);
    expect(await guarded.run('Refund order A-42')).toMatchObject({ status: 'paused' });
    const [question] = await gate.interlock.pending();
    await gate.interlock.respond(question!.interactionId, { approved: true }, { responder: 'web:ada' });
    await until(
      'the run to finish',
      () => finished,
      (outputs) => outputs.length > 0,
    );
    expect(finished).toEqual(['Refunded.']);
    await desk.expectOnlyTheApprovedRefund();
    // The refund's receipt, and the one of the gate's own tool that continued the run: each verifies.
    expect(await gate.interlock.receipts.verify(await gate.interlock.audit())).toEqual({
      receipts: 2,
      valid: true,
      problems: [],
    });
  });
});
