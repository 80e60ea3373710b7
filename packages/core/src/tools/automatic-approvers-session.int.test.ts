import { afterEach, describe, expect, it } from 'vitest';
import { linearWorkflow } from '../__fixtures__/workflows.js';
import { createInterlock, type Interlock } from '../index.js';
import type { ApprovalOptions, ToolUse } from '../policy/approval-options.js';
import type { ToolApprovalBusRequest } from '../policy/message-bus.js';
import { noteTool, scriptedModel } from '../testing/index.js';

/*
 * F27, issue 37: onToolApprove and the message bus are told where a call is made as the
 * channel's handler is — the session, the channel, the thread, and also the chat and the
 * parent thread (a sub-agent's).
 */
const opened: Interlock[] = [];
afterEach(async () => {
  for (const interlock of opened.splice(0)) await interlock.close();
});

async function proposeNote(approval: ApprovalOptions | undefined): Promise<Interlock> {
  const interlock = await createInterlock({
    tools: [noteTool()],
    ...(approval === undefined ? {} : { approval }),
    models: {
      default: scriptedModel([
        { text: '', toolCalls: [{ id: 'c1', name: 'note', arguments: { text: 'hello' } }] },
        'Done.',
      ]),
    },
  });
  opened.push(interlock);
  return interlock;
}

const session = { sessionId: 'session-7', chatId: 'slack-C0123', parentThreadId: 'thread-parent' };

async function run(interlock: Interlock): Promise<void> {
  const workflow = interlock.registerWorkflow(
    linearWorkflow([{ id: 'agent', type: 'LLM', config: { prompt: 'Note it', tools: ['note'] } }], {
      id: 'automatic-session',
    }),
  );
  const handle = await interlock.start(workflow, { channel: 'chat', session });
  expect(await handle.done()).toMatchObject({ status: 'completed' });
}

describe('what an automatic approver is told (F27, issue 37)', () => {
  it('onToolApprove gets the chat and the parent thread with the session, channel and thread', async () => {
    const told: ToolUse[] = [];
    const interlock = await proposeNote({
      onToolApprove: (toolUse) => {
        told.push(toolUse);
        return true;
      },
    });
    await run(interlock);
    expect(told).toEqual([
      expect.objectContaining({
        toolName: 'note',
        channel: 'chat',
        sessionId: 'session-7',
        chatId: 'slack-C0123',
        parentThreadId: 'thread-parent',
      }),
    ]);
  });

  it('a toolApproval handler on the message bus gets them too', async () => {
    const interlock = await proposeNote(undefined);
    const requests: ToolApprovalBusRequest[] = [];
    interlock.messageBus.registerHandler('toolApproval', (request) => {
      requests.push(request);
      return true;
    });
    await run(interlock);
    expect(requests).toEqual([
      expect.objectContaining({
        sessionId: 'session-7',
        chatId: 'slack-C0123',
        parentThreadId: 'thread-parent',
        toolUse: expect.objectContaining({ chatId: 'slack-C0123', parentThreadId: 'thread-parent' }),
      }),
    ]);
  });
});
