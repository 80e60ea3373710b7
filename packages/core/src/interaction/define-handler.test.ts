import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { linearWorkflow } from '../__fixtures__/workflows.js';
import { approve, createInterlock, defineHandler, defineTool, reject, type UserInteractionRequest } from '../index.js';
import { scriptedModel } from '../testing/index.js';

/** Issue 16: types for people who implement a handler, from @interlock/core alone. */
describe('defineHandler', () => {
  it('answers tool approvals with typed approve and reject', async () => {
    const seen: UserInteractionRequest[] = [];
    const handler = defineHandler({
      async handle(request: UserInteractionRequest) {
        seen.push(request);
        if (request.operationType !== 'TOOL_APPROVAL') return { outcome: 'deferred' as const };
        return request.toolApproval?.toolParameters['text'] === 'ok'
          ? approve({ userInstruction: 'be brief' }, 'ada')
          : reject('not that one', 'ada');
      },
    });
    const note = defineTool({
      name: 'note',
      description: 'Notes a line',
      category: 'write',
      riskLevel: 'HIGH',
      parameters: z.object({ text: z.string() }),
      execute: async ({ text }) => `noted ${text}`,
    });
    const model = scriptedModel([
      {
        text: '',
        toolCalls: [
          { id: 'a', name: 'note', arguments: { text: 'ok' } },
          { id: 'b', name: 'note', arguments: { text: 'no' } },
        ],
      },
      'Done.',
    ]);
    const interlock = await createInterlock({ models: { default: model }, tools: [note], handlers: { cli: handler } });
    try {
      const workflow = interlock.registerWorkflow(
        linearWorkflow(
          [{ id: 'agent', type: 'LLM', config: { prompt: 'Note', tools: ['note'], outputVariable: 'output' } }],
          { id: 'typed' },
        ),
      );
      expect(await (await interlock.start(workflow, { channel: 'cli' })).done()).toMatchObject({ status: 'completed' });
      const messages = model.requests[1]!.messages;
      expect(messages.filter((message) => message.role === 'tool').map((message) => message.content)).toEqual([
        expect.stringContaining('noted ok'),
        expect.stringContaining('not that one'),
      ]);
      expect(messages.at(-1)).toMatchObject({ role: 'user', content: 'be brief' });
      expect(
        (await interlock.audit()).filter((entry) => entry.decidedBy === 'person').map((entry) => entry.responder),
      ).toEqual(['ada', 'ada']);
      expect(seen).toHaveLength(2);
    } finally {
      await interlock.close();
    }
  });
});
