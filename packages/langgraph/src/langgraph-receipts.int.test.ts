import {
  EXPECTED_REFUSALS,
  refusalsOf,
  startChatCompletionsServer,
  startReceiptService,
  until,
  type ChatCompletionsServer,
  type ReceiptService,
} from '@interlock/core/testing';
import { MemorySaver } from '@langchain/langgraph';
import { ChatOpenAI } from '@langchain/openai';
import { createAgent, humanInTheLoopMiddleware, tool } from 'langchain';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { currentReceipt, interlockGraph, interruptOnEvery, type InterlockGraph } from './index.js';

/*
 * Approval receipts through a LangChain 1 agent's graph (F63): the refund a person approved
 * runs with its receipt, which the refund service accepts; the service refuses the same call
 * made any other way.
 */
let server: ChatCompletionsServer;
let service: ReceiptService;
let guarded: InterlockGraph | undefined;

beforeEach(async () => {
  server = await startChatCompletionsServer();
});
afterEach(async () => {
  await guarded?.close();
  guarded = undefined;
  await service.close();
  await server.close();
});

describe('a LangGraph agent’s tools get approval receipts (F56, F63)', { timeout: 90_000 }, () => {
  it('runs the approved refund with a receipt its service accepts; the service refuses it any other way', async () => {
    const receipts: string[] = [];
    const refund = tool(
      async (args: { orderId: string; amount: number }) => {
        const receipt = currentReceipt({ toolName: 'refund', arguments: args });
        if (receipt !== undefined) receipts.push(receipt);
        const answer = await service.call('refund', args, receipt);
        return answer.accepted === undefined ? `refused: ${String(answer.refused)}` : 'refunded';
      },
      {
        name: 'refund',
        description: 'Refunds an order',
        schema: z.object({ orderId: z.string(), amount: z.number() }),
      },
    );
    const checkpointer = new MemorySaver();
    const model = new ChatOpenAI({
      model: 'm',
      apiKey: 'k',
      maxRetries: 0,
      configuration: { baseURL: server.baseURL },
    });
    const agent = createAgent({
      model,
      tools: [refund],
      checkpointer,
      // The middleware's types do not hold under exactOptionalPropertyTypes (as in examples/adapters/langgraph.ts).
      middleware: [humanInTheLoopMiddleware({ interruptOn: interruptOnEvery([refund]) } as never) as never],
    });
    const finished: unknown[] = [];
    guarded = await interlockGraph({
      graph: agent.graph,
      checkpointer,
      tools: { refund: { category: 'command', riskLevel: 'HIGH' } },
      onFinished: (result) => void finished.push(result),
    });
    const gate = guarded.gate;
    service = await startReceiptService(() => gate.interlock.receipts.jwks());
    server.enqueue(
      { toolCalls: [{ id: 'call_1', name: 'refund', arguments: { orderId: 'A-42', amount: 120 } }] },
      { text: 'Refunded.' },
    );
    const outcome = await guarded.invoke({ messages: [{ role: 'user', content: 'Refund A-42' }] }, { threadId: 't1' });
    expect(outcome).toMatchObject({ status: 'paused' });
    const [question] = await gate.interlock.pending();
    await gate.interlock.respond(question!.interactionId, { approved: true }, { responder: 'web:ada' });
    await until(
      'the run to finish',
      () => finished,
      (results) => results.length > 0,
    );
    expect(service.calls.map((call) => call.accepted?.approvers)).toEqual([['web:ada']]);
    expect(
      await refusalsOf(
        service,
        { tool: 'refund', arguments: { orderId: 'A-42', amount: 120 }, receipt: receipts[0]! },
        { amount: 1200 },
      ),
    ).toEqual(EXPECTED_REFUSALS);
    expect(await gate.interlock.receipts.verify(await gate.interlock.audit())).toMatchObject({ valid: true });
  });
});
