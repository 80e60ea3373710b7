import { InterlockError, type ThreadStatus } from '@interlock/core';
import type { FastifyInstance } from 'fastify';
import { cancelThreadBody, idParams, startThreadBody, threadsQuery } from '../api-schemas.js';
import { buildTimeline, summarizeThread } from '../timeline.js';
import type { Principal } from '../auth/approvers.js';
import { mayApprove, responderOf, type WebContext } from '../web-context.js';
import { WebError } from '../web-error.js';

/** Threads: the list, one thread's timeline, starting a workflow, cancelling a thread. */
export function registerThreadRoutes(app: FastifyInstance, context: WebContext): void {
  app.get('/api/workflows', async (request) => ({
    workflows: (await startableBy(context, request.principal)).map((workflow) => ({
      id: workflow.id,
      name: workflow.name,
      version: workflow.version,
      ...(workflow.description === undefined ? {} : { description: workflow.description }),
    })),
  }));

  app.get<{ Querystring: { status?: ThreadStatus } }>(
    '/api/threads',
    { schema: { querystring: threadsQuery } },
    async (request) => {
      const threads = (
        await context.interlock.threads(request.query.status === undefined ? {} : { status: request.query.status })
      ).filter((thread) => mayApprove(context, thread.workflowId, request.principal));
      return { threads: threads.map(summarizeThread).sort((a, b) => b.updatedAt.localeCompare(a.updatedAt)) };
    },
  );

  app.get<{ Params: { threadId: string } }>(
    '/api/threads/:threadId',
    { schema: { params: idParams('threadId') } },
    async (request) => {
      const thread = await findThread(context, request.params.threadId, request.principal);
      return buildTimeline(context.store, thread, await context.interlock.audit({ threadId: thread.threadId }));
    },
  );

  app.post<{ Body: { workflowId: string; input?: Record<string, unknown> } }>(
    '/api/threads',
    { schema: { body: startThreadBody } },
    async (request, reply) => {
      const { workflowId, input } = request.body;
      const startable = await startableBy(context, request.principal);
      const workflow = startable.find((candidate) => candidate.id === workflowId);
      if (workflow === undefined) {
        throw new WebError(
          404,
          'WORKFLOW_NOT_FOUND',
          `no workflow "${workflowId}" that you may start here: GET /api/workflows lists them (${startable.map((candidate) => candidate.id).join(', ') || 'none'})`,
        );
      }
      try {
        const requestedBy = responderOf(request.approver as string);
        const thread = await context.interlock.start(workflow, {
          channel: context.channel,
          session: { requestedBy },
          ...(input === undefined ? {} : { input }),
        });
        reply.code(201);
        return { threadId: thread.threadId };
      } catch (error) {
        if (InterlockError.is(error) && error.code === 'VARIABLE_UNDECLARED')
          throw new WebError(400, 'BAD_REQUEST', error.message);
        throw error;
      }
    },
  );

  app.post<{ Params: { threadId: string }; Body: { reason?: string } | null }>(
    '/api/threads/:threadId/cancel',
    { schema: { params: idParams('threadId'), body: cancelThreadBody } },
    async (request) => {
      const { threadId } = request.params;
      const thread = await findThread(context, threadId, request.principal);
      const name = request.approver as string;
      if (thread.status !== 'waiting' && thread.status !== 'running') {
        throw new WebError(
          409,
          'THREAD_NOT_WAITING',
          `thread ${threadId} is ${thread.status}: only a waiting or running thread can be cancelled`,
        );
      }
      const reason = request.body?.reason?.trim();
      await context.interlock.cancel(threadId, `cancelled by ${responderOf(name)}${reason ? `: ${reason}` : ''}`);
      const after = await context.store.getThread(threadId);
      return { threadId, status: after?.status ?? thread.status };
    },
  );
}

/** The thread, if `approver` may see it; a missing thread and one that is not theirs get the same 404. */
async function findThread(context: WebContext, threadId: string, approver: Principal | undefined) {
  const thread = await context.store.getThread(threadId);
  if (thread === undefined || !mayApprove(context, thread.workflowId, approver)) {
    throw new WebError(404, 'THREAD_NOT_FOUND', `no thread ${threadId} that you may see: GET /api/threads lists them`);
  }
  return thread;
}

async function startableBy(context: WebContext, approver: Principal | undefined) {
  return (await context.startable()).filter((workflow) => mayApprove(context, workflow.id, approver));
}
