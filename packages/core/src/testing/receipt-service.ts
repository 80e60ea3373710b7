import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  generateReceiptKey,
  memorySeenStore,
  RECEIPT_HEADER,
  ReceiptError,
  signingKeyOf,
  signReceipt,
  verifyReceipt,
  type JSONWebKeySet,
  type ReceiptClaims,
  type ReceiptErrorCode,
  type ReceiptSigningKey,
} from '@interlock/receipts';

/** One call a {@link ReceiptService} took or refused. */
export interface ServiceCall {
  tool: string;
  arguments: unknown;
  /** The receipt's claims when it was accepted, else the code it was refused with. */
  accepted?: ReceiptClaims;
  refused?: ReceiptErrorCode;
}

/**
 * A service a tool calls that refuses every call without a valid approval receipt (F63),
 * over HTTP on 127.0.0.1: `POST /tools/<tool>` with the arguments as JSON, or any `GET` as
 * Interlock's `http_fetch` tool (`{ url }`), each with the receipt in `Interlock-Receipt`.
 * It checks each receipt against the JWKS, the tool and the arguments it received, takes
 * each receipt once, and answers 200 with the receipt's claims or 403 with the refusal's code.
 */
export interface ReceiptService {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly calls: ServiceCall[];
  /** The service's clock (ms since the epoch): move it to see a receipt expire. Default the wall clock. */
  now: () => number;
  /** Calls `tool` with `args` and a receipt (or none): what the service said. */
  call(tool: string, args: unknown, receipt?: string): Promise<ServiceCall>;
  close(): Promise<void>;
}

export async function startReceiptService(jwks: () => JSONWebKeySet | Promise<JSONWebKeySet>): Promise<ReceiptService> {
  const once = memorySeenStore();
  const calls: ServiceCall[] = [];
  let url = '';
  const service: ReceiptService = {
    get url() {
      return url;
    },
    calls,
    now: () => Date.now(),
    async call(tool, args, receipt) {
      const response = await fetch(`${url}/tools/${encodeURIComponent(tool)}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(receipt === undefined ? {} : { [RECEIPT_HEADER]: receipt }),
        },
        body: JSON.stringify(args),
      });
      await response.arrayBuffer();
      return calls.at(-1) as ServiceCall;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = createServer((request, response) => {
    void take(request)
      .then(async ({ tool, args }) => {
        const recorded: ServiceCall = { tool, arguments: args };
        calls.push(recorded);
        try {
          recorded.accepted = await verifyReceipt(request.headers[RECEIPT_HEADER.toLowerCase()], {
            jwks: await jwks(),
            tool,
            arguments: args,
            now: service.now(),
            once,
          });
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ ok: true, approvers: recorded.accepted.approvers }));
        } catch (error) {
          if (!ReceiptError.is(error)) throw error;
          recorded.refused = error.code;
          response.writeHead(403, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ ok: false, code: error.code }));
        }
      })
      .catch((error: unknown) => {
        response.writeHead(500);
        response.end(String(error));
      });
  });
  server.closeIdleConnections();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  return service;

  async function take(request: IncomingMessage): Promise<{ tool: string; args: unknown }> {
    let text = '';
    for await (const part of request) text += (part as Buffer).toString('utf8');
    const path = request.url ?? '/';
    if (request.method === 'POST' && path.startsWith('/tools/'))
      return { tool: decodeURIComponent(path.slice('/tools/'.length)), args: JSON.parse(text) as unknown };
    return { tool: 'http_fetch', args: { url: `${url}${path}` } };
  }
}

/**
 * The same claims as `token`'s, signed again: by default by a key of nobody's JWKS (what a
 * forger without Interlock's key could make); with `key`, by that one; with `issuedAt` (ms),
 * issued then (a receipt that has expired, signed by the right key).
 */
export async function forgedReceipt(
  token: string,
  options: { key?: ReceiptSigningKey; issuedAt?: number } = {},
): Promise<string> {
  const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as ReceiptClaims;
  const { iss, jti, iat, exp, ...statement } = payload;
  const key = options.key ?? (await signingKeyOf(await generateReceiptKey()));
  return signReceipt(statement, key, { issuer: iss, jti, now: options.issuedAt ?? iat * 1000, ttlSeconds: exp - iat });
}

/**
 * What the service says to the same call made otherwise than approved (F63), once it took
 * the approved call with `receipt`: without a receipt, with an argument changed, to another
 * tool, after the receipt expired, the receipt again, and a receipt signed by a stranger.
 */
export async function refusalsOf(
  service: ReceiptService,
  approved: { tool: string; arguments: Record<string, unknown>; receipt: string },
  changed: Record<string, unknown>,
): Promise<Record<string, ReceiptErrorCode | 'accepted' | undefined>> {
  const { tool, arguments: args, receipt } = approved;
  const said = async (made: Promise<ServiceCall>) => {
    const call = await made;
    return call.accepted === undefined ? call.refused : 'accepted';
  };
  const withoutReceipt = await said(service.call(tool, args));
  const editedArgument = await said(service.call(tool, { ...args, ...changed }, receipt));
  const anotherTool = await said(service.call(`${tool}_other`, args, receipt));
  const claims = JSON.parse(Buffer.from(receipt.split('.')[1] ?? '', 'base64url').toString('utf8')) as ReceiptClaims;
  const clock = service.now;
  service.now = () => (claims.exp + 1) * 1000;
  const expired = await said(service.call(tool, args, receipt));
  service.now = clock;
  const replayed = await said(service.call(tool, args, receipt));
  const strangerKey = await said(service.call(tool, args, await forgedReceipt(receipt)));
  return { withoutReceipt, editedArgument, anotherTool, expired, replayed, strangerKey };
}

/** What {@link refusalsOf} comes to when the service refuses every one as it should. */
export const EXPECTED_REFUSALS = {
  withoutReceipt: 'RECEIPT_MISSING',
  editedArgument: 'RECEIPT_WRONG_ARGUMENTS',
  anotherTool: 'RECEIPT_WRONG_TOOL',
  expired: 'RECEIPT_EXPIRED',
  replayed: 'RECEIPT_REPLAYED',
  strangerKey: 'RECEIPT_KEY_UNKNOWN',
} as const;
