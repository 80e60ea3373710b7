import type { FastifyInstance } from 'fastify';
import { auditQuery } from '../api-schemas.js';
import type { WebContext } from '../web-context.js';

/** The audit trail of tool-call decisions and the check of its hash chain. */
export function registerAuditRoutes(app: FastifyInstance, context: WebContext): void {
  app.get<{ Querystring: { threadId?: string } }>('/api/audit', { schema: { querystring: auditQuery } }, async (request) => ({
    entries: await context.interlock.audit(request.query.threadId === undefined ? {} : { threadId: request.query.threadId }),
  }));

  app.get('/api/audit/verify', async () => context.interlock.verifyAudit());
}
