import type { FastifyInstance } from 'fastify';
import { auditQuery } from '../api-schemas.js';
import { mayApprove, type WebContext } from '../web-context.js';

/** The audit trail of tool-call decisions and the check of its hash chain. */
export function registerAuditRoutes(app: FastifyInstance, context: WebContext): void {
  app.get<{ Querystring: { threadId?: string } }>(
    '/api/audit',
    { schema: { querystring: auditQuery } },
    async (request) => {
      // Only the entries of threads this approver may see.
      const visible = new Set(
        (await context.interlock.threads())
          .filter((thread) => mayApprove(context, thread.workflowId, request.principal))
          .map((thread) => thread.threadId),
      );
      const entries = await context.interlock.audit(
        request.query.threadId === undefined ? {} : { threadId: request.query.threadId },
      );
      return { entries: entries.filter((entry) => visible.has(entry.threadId)) };
    },
  );

  app.get('/api/audit/verify', async () => context.interlock.verifyAudit());
}
