import type { Interlock } from '@interlock/core';
import type { FastifyInstance } from 'fastify';

/** How long a service may keep the JWKS before it asks again: a new key is in it within this after a rotation. */
const JWKS_MAX_AGE_SECONDS = 60;

/**
 * `GET /.well-known/jwks.json` (F63): the public keys the services a tool calls check
 * approval receipts against — every key in use, and retired ones until their last receipt
 * expired (the store's keys, shared by every process of the deployment). Public, like a
 * sign-in provider's JWKS: it holds no secret and names no person.
 */
export function registerReceiptRoutes(app: FastifyInstance, interlock: Interlock): void {
  app.get('/.well-known/jwks.json', { config: { public: true } }, async (_request, reply) => {
    const jwks = await interlock.receipts.jwks();
    return reply
      .header('cache-control', `public, max-age=${String(JWKS_MAX_AGE_SECONDS)}`)
      .type('application/jwk-set+json')
      .send(JSON.stringify(jwks));
  });
}
