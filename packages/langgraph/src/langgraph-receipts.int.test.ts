import { until } from '@interlock/core/testing';
import { chatModelPerTest, refundDesk, REFUND_TURNS } from '@interlock/testing-adapters';
import { MemorySaver } from '@langchain/langgraph';
import { ChatOpenAI } from '@langchain/openai';
import { createAgent, humanInTheLoopMiddleware, tool } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { currentReceipt, interlockGraph, interruptOnEvery } from './index.js';

/*
 * Approval receipts through a LangChain 1 agent's graph (F63): the refund a person approved
 * runs with its receipt, which the refund service accepts; the service refuses the same call
 * made any other way.
 */
const desk = refundDesk();
const model = chatModelPerTest();

describe('a LangGraph agent’s tools get approval receipts (F56, F63)', { timeout: 90_000 }, () => {
  it('runs the approved refund with a receipt its service accepts; the service refuses it any other way', async () => {
    const refund = tool(
      (args: { orderId: string; amount: number }) =>
        desk.refund(args, currentReceipt({ toolName: 'refund', arguments: args })),
      {
        name: 'refund',
        description: 'Refunds an order',
        schema: z.object({ orderId: z.string(), amount: z.number() }),
      },
    );
    const checkpointer = new MemorySaver();
    const agent = createAgent({
      model: new ChatOpenAI({
        model: 'm',
        apiKey: 'k',
        maxRetries: 0,
        configuration: { baseURL: model.server.baseURL },
      }),
      tools: [refund],
      checkpointer,
      // The middleware's types do not hold under exactOptionalPropertyTypes (as in examples/adapters/langgraph.ts).
      middleware: [humanInTheLoopMiddleware({ interruptOn: interruptOnEvery([refund]) } as never) as never],
    });
    const finished: unknown[] = [];
    const guarded = model.closing(
      await interlockGraph({
        graph: agent.graph,
        checkpointer,
        tools: { refund: { category: 'command', riskLevel: 'HIGH' } },
        onFinished: (result) => void finished.push(result),
      }),
    );
    const gate = guarded.gate;
    await desk.open(() => gate.interlock.receipts.jwks());
    model.server.enqueue(...REFUND_TURNS);
    const outcome = await guarded.invoke({ messages: [{ role: 'user', content: 'Refund A-42' }] }, { threadId: 't1' });
    expect(outcome).toMatchObject({ status: 'paused' });
    const [question] = await gate.interlock.pending();
    await gate.interlock.respond(question!.interactionId, { approved: true }, { responder: 'web:ada' });
    await until(
      'the run to finish',
      () => finished,
      (results) => results.length > 0,
    );
    await desk.expectOnlyTheApprovedRefund();
    expect(await gate.interlock.receipts.verify(await gate.interlock.audit())).toMatchObject({ valid: true });
  });
});
