import { InterlockError, type ThreadStatus } from '@interlock/core';
import type { FastifyInstance } from 'fastify';
import { cancelThreadBody, idParams, startThreadBody, threadsQuery } from '../api-schemas.js';
import { buildTimeline, summarizeThread } from '../timeline.js';
import { assertMayApprove, responderOf, type WebContext } from '../web-context.js';
import { WebError } from '../web-error.js';

/** Threads: the list, one thread's timeline, starting a workflow, cancelling a thread. */
export function registerThreadRoutes(app: FastifyInstance, context: WebContext): void {
  app.get('/api/workflows', async () => ({
    workflows: (await context.startable()).map((workflow) => ({
      id: workflow.id,
      name: workflow.name,
      version: workflow.version,
      ...(workflow.description === undefined ? {} : { description: workflow.description }),
    })),
  }));

  app.get<{ Querystring: { status?: ThreadStatus } }>('/api/threads', { schema: { querystring: threadsQuery } }, async (request) => {
    const threads = await context.interlock.threads(request.query.status === undefined ? {} : { status: request.query.status });
    return { threads: threads.map(summarizeThread).sort((a, b) => b.updatedAt.localeCompare(a.updatedAt)) };
  });

  app.get<{ Params: { threadId: string } }>('/api/threads/:threadId', { schema: { params: idParams('threadId') } }, async (request) => {
    const thread = await context.store.getThread(request.params.threadId);
    if (thread === undefined) throw threadNotFound(request.params.threadId);
    return buildTimeline(context.store, thread, await context.interlock.audit({ threadId: thread.threadId }));
  });

  app.post<{ Body: { workflowId: string; input?: Record<string, unknown> } }>('/api/threads', { schema: { body: startThreadBody } }, async (request, reply) => {
    const { workflowId, input } = request.body;
    const startable = await context.startable();
    const workflow = startable.find((candidate) => candidate.id === workflowId);
    if (workflow === undefined) {
      throw new WebError(404, 'WORKFLOW_NOT_FOUND', `no workflow "${workflowId}" can be started here: GET /api/workflows lists them (${startable.map((candidate) => candidate.id).join(', ') || 'none: no worker serves one'})`);
    }
    assertMayApprove(context, workflowId, request.approver);
    try {
      const thread = await context.interlock.start(workflow, { channel: context.channel, ...(input === undefined ? {} : { input }) });
      reply.code(201);
      return { threadId: thread.threadId };
    } catch (error) {
      if (InterlockError.is(error) && error.code === 'VARIABLE_UNDECLARED') throw new WebError(400, 'BAD_REQUEST', error.message);
      throw error;
    }
  });

  app.post<{ Params: { threadId: string }; Body: { reason?: string } | null }>(
    '/api/threads/:threadId/cancel',
    { schema: { params: idParams('threadId'), body: cancelThreadBody } },
    async (request) => {
      const { threadId } = request.params;
      const thread = await context.store.getThread(threadId);
      if (thread === undefined) throw threadNotFound(threadId);
      const name = assertMayApprove(context, thread.workflowId, request.approver);
      if (thread.status !== 'waiting' && thread.status !== 'running') {
        throw new WebError(409, 'THREAD_NOT_WAITING', `thread ${threadId} is ${thread.status}: only a waiting or running thread can be cancelled`);
      }
      const reason = request.body?.reason?.trim();
      await context.interlock.cancel(threadId, `cancelled by ${responderOf(name)}${reason ? `: ${reason}` : ''}`);
      const after = await context.store.getThread(threadId);
      return { threadId, status: after?.status ?? thread.status };
    },
  );
}

function threadNotFound(threadId: string): WebError {
  return new WebError(404, 'THREAD_NOT_FOUND', `no thread ${threadId}: GET /api/threads lists them`);
}
