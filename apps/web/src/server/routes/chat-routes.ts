import { InterlockError } from '@interlock/core';
import type { FastifyInstance } from 'fastify';
import type { ChatChannel } from '@interlock/chat';
import { chatMessageBody, idParams } from '../api-schemas.js';
import { assertMayApprove, mayApprove, type WebContext } from '../web-context.js';
import { WebError } from '../web-error.js';

/**
 * The chat view's routes: list and open chats, read a transcript, send a message. A
 * message is sent as the signed-in approver; a yes or no that answers an approval never
 * reaches the agent (see src/chat/README.md).
 */
export function registerChatRoutes(app: FastifyInstance, chat: ChatChannel, context: WebContext): void {
  const subscription = chat.updates$.subscribe({
    next: ({ chatId }) => context.live.publish({ kind: 'chat', reason: 'updated', chatId }),
  });
  app.addHook('onClose', async () => subscription.unsubscribe());

  app.get('/api/chats', async (request) => {
    if (!mayApprove(context, chat.workflowId, request.principal)) return { chats: [] };
    const threads = await context.interlock.threads();
    const chats = threads
      .filter((thread) => thread.channel === chat.channel && thread.session.chatId !== undefined)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
      .map((thread) => ({
        chatId: thread.session.chatId,
        threadId: thread.threadId,
        status: thread.status,
        createdAt: thread.createdAt,
      }));
    return { chats };
  });

  app.post('/api/chats', async (request, reply) => {
    const opened = await chat.open(assertMayApprove(context, chat.workflowId, request.principal));
    reply.code(201);
    return opened;
  });

  app.get<{ Params: { chatId: string } }>(
    '/api/chats/:chatId/messages',
    { schema: { params: idParams('chatId') } },
    async (request) => {
      // Someone who may not use the chat gets the answer a missing chat gets.
      if (!mayApprove(context, chat.workflowId, request.principal)) throw chatNotFound(request.params.chatId);
      return { entries: await withChat(request.params.chatId, () => chat.transcript(request.params.chatId)) };
    },
  );

  app.post<{ Params: { chatId: string }; Body: { text: string } }>(
    '/api/chats/:chatId/messages',
    { schema: { params: idParams('chatId'), body: chatMessageBody } },
    async (request) => {
      const { chatId } = request.params;
      const author = assertMayApprove(context, chat.workflowId, request.principal);
      const result = await withChat(chatId, () => chat.receive(chatId, request.body.text, author));
      return { result, entries: await chat.transcript(chatId) };
    },
  );
}

async function withChat<T>(chatId: string, action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (InterlockError.is(error) && error.code === 'THREAD_NOT_FOUND') throw chatNotFound(chatId);
    throw error;
  }
}

function chatNotFound(chatId: string): WebError {
  return new WebError(404, 'CHAT_NOT_FOUND', `no chat ${chatId}: GET /api/chats lists them, POST /api/chats opens one`);
}
