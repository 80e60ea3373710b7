/**
 * Who may talk to `interlock mcp serve --http` (issue 24). The MCP transport specification
 * asks a server on Streamable HTTP to check `Origin` (DNS rebinding: a web page whose name
 * resolves to 127.0.0.1 reaches a local server from the browser), to bind to loopback
 * locally, and to authenticate. So, before a request is read:
 *
 * - its `Host` must be a name this server answers to — loopback names with its port, the
 *   address it listens on, or one the operator allowed — else 403;
 * - an `Origin`, when sent (browsers send it, MCP clients do not), must be one the operator
 *   allowed; by default none is, so no web page can call the server — else 403;
 * - with a token, `Authorization: Bearer <token>` must match (compared in constant time) —
 *   else 401. A server that listens beyond loopback must have one.
 *
 * @module
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** What the guard allows. */
export interface HttpGuardOptions {
  /** The port the server listens on (after `listen`, when 0 was asked for). */
  port: number;
  /** The address it listens on (`127.0.0.1`, `::1`, `0.0.0.0`, a name). */
  bindHost: string;
  /** More `Host` values to answer to: `name` (any port) or `name:port`. */
  allowedHosts?: readonly string[];
  /** Origins (`https://app.example.com`) whose pages may call the server. Default none. */
  allowedOrigins?: readonly string[];
  /** The bearer token every request must carry. Required unless `bindHost` is loopback. */
  token?: string;
}

/** The guard's verdict on one request. */
export type HttpGuardVerdict = { ok: true } | { ok: false; status: 401 | 403; message: string };

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** Whether an address only this machine can reach: `localhost`, `127.x.x.x`, `::1`. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127(?:\.\d{1,3}){3}$/.test(bare);
}

/** A request's headers as Node gives them. */
type Headers = Readonly<Record<string, string | string[] | undefined>>;

/**
 * Checks one request's `Host`, `Origin` and `Authorization` (see the module comment).
 *
 * @example
 * const verdict = checkHttpRequest(request.headers, { port: 8765, bindHost: '127.0.0.1' });
 * if (!verdict.ok) response.writeHead(verdict.status).end(verdict.message);
 */
export function checkHttpRequest(headers: Headers, options: HttpGuardOptions): HttpGuardVerdict {
  const host = single(headers['host'])?.toLowerCase();
  if (host === undefined || !allowedHost(host, options))
    return {
      ok: false,
      status: 403,
      message: `this server does not answer to Host ${JSON.stringify(host ?? '')}: use http://127.0.0.1:${options.port}/mcp, or start it with --allow-host`,
    };
  const origin = single(headers['origin']);
  if (origin !== undefined && !(options.allowedOrigins ?? []).some((allowed) => sameOrigin(allowed, origin)))
    return {
      ok: false,
      status: 403,
      message: `requests from the web page at ${JSON.stringify(origin)} are refused: start the server with --allow-origin to allow an origin`,
    };
  if (options.token !== undefined && !bearerMatches(single(headers['authorization']), options.token))
    return { ok: false, status: 401, message: 'this server needs Authorization: Bearer <token>' };
  return { ok: true };
}

function allowedHost(host: string, options: HttpGuardOptions): boolean {
  const withPort = (name: string) => `${name}:${options.port}`;
  if (LOOPBACK_NAMES.some((name) => host === withPort(name))) return true;
  const bind = options.bindHost.toLowerCase();
  const bindName = bind.includes(':') && !bind.startsWith('[') ? `[${bind}]` : bind;
  if (!['0.0.0.0', '[::]'].includes(bindName) && host === withPort(bindName)) return true;
  return (options.allowedHosts ?? []).some((allowed) => {
    const entry = allowed.toLowerCase();
    return entry.includes(':') && !entry.endsWith(']') ? host === entry : hostName(host) === entry;
  });
}

/** `name:port` → `name`; `[::1]:80` → `[::1]`. */
function hostName(host: string): string {
  const colon = host.lastIndexOf(':');
  return colon > host.lastIndexOf(']') ? host.slice(0, colon) : host;
}

function sameOrigin(allowed: string, origin: string): boolean {
  try {
    return new URL(allowed).origin === new URL(origin).origin;
  } catch {
    return false;
  }
}

function bearerMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
  if (given === undefined) return false;
  // Hashes of equal length: no early exit, and no length told away.
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(token));
}

/** One header's value; a header sent twice is joined, and then matches nothing allowed. */
function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}
