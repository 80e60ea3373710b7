import { describe, expect, it } from 'vitest';
import { askNode, linearWorkflow } from './__fixtures__/workflows.js';
import { createInterlock } from './index.js';

describe('reading a thread and its interactions through the public API', () => {
  it('shows a waiting thread and its question, then the answer, who gave it, and the finished thread', async () => {
    const interlock = await createInterlock();
    const workflow = interlock.registerWorkflow(linearWorkflow([askNode('ask')], { id: 'reads' }));
    const waiting = await (await interlock.start(workflow, { channel: 'inbox' })).done();

    const thread = await interlock.thread(waiting.threadId);
    expect(thread).toMatchObject({ status: 'waiting', workflowId: 'reads' });
    const [question] = await interlock.interactions({ threadId: waiting.threadId });
    expect(question).toMatchObject({ status: 'pending', nodeId: 'ask' });
    expect(thread?.pendingInteractionIds).toEqual([question?.interactionId]);

    const answer = await interlock.respond(question!.interactionId, 'ship it', { responder: 'ada' });
    await (answer.status === 'accepted' ? answer.thread?.done() : undefined);
    expect(await interlock.thread(waiting.threadId)).toMatchObject({ status: 'completed', pendingInteractionIds: [] });
    expect(await interlock.interactions({ threadId: waiting.threadId })).toEqual([
      expect.objectContaining({
        status: 'processed',
        response: expect.objectContaining({ input: 'ship it', responder: 'ada' }),
      }),
    ]);
    expect(await interlock.interactions({ status: 'pending' })).toEqual([]);
    expect(await interlock.thread('no-such-thread')).toBeUndefined();
    await interlock.close();
  });
});
