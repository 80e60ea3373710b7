import { checkReadiness, readinessAnswer, type ReadinessCheck } from '@interlock/core';
import type { FastifyInstance } from 'fastify';

/**
 * `GET /healthz` (the process answers: 200) and `GET /readyz` (every check passes: 200;
 * otherwise 503 with the failing checks' names), for an orchestrator's probes (F60). Both
 * need no sign-in and are not rate-limited; they say nothing about threads or people.
 */
export function registerHealthRoutes(app: FastifyInstance, checks: readonly ReadinessCheck[]): void {
  const config = { public: true, rateLimit: false } as const;
  app.get('/healthz', { config }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config }, async (_request, reply) => {
    const { statusCode, body } = readinessAnswer(await checkReadiness(checks));
    return reply.code(statusCode).header('cache-control', 'no-store').send(body);
  });
}
