// An Express middleware that lets a request through only with a valid Interlock approval
// receipt for exactly the call it makes (F63). Interlock sends the receipt in the
// `Interlock-Receipt` header (its http_fetch tool; a tool of your own forwards
// `context.receipt` or `currentReceipt()`); the middleware checks it against Interlock's
// JWKS, the tool and the arguments this request carries, and takes each receipt once.
import type { NextFunction, Request, Response } from 'express';
import {
  memorySeenStore,
  RECEIPT_HEADER,
  ReceiptError,
  verifyReceipt,
  type ReceiptClaims,
  type ReceiptKeys,
  type ReceiptSeenStore,
} from '@interlock/receipts';

export interface RequireReceiptOptions {
  /** Interlock's public keys: its JWKS, or `remoteJwks('https://interlock.example.com/.well-known/jwks.json')`. */
  jwks: ReceiptKeys;
  /** The tool this route is, by Interlock's name for it. */
  tool: string | ((request: Request) => string);
  /** The arguments of the call this request makes, as the tool was given them. */
  arguments: (request: Request) => unknown;
  /** The definition pin this service accepts (the tool's definition hash). */
  definition?: string;
  /** Where taken receipts are remembered (default: this process's memory; share one across instances). */
  once?: ReceiptSeenStore;
  /** The clock (ms since the epoch). Default the wall clock. */
  now?: () => number;
}

/** What a route behind the middleware finds in `response.locals.receipt`. */
export type ReceiptLocals = { receipt: ReceiptClaims };

/** Refuses (403, `{ error, code }`) a request without a valid receipt for exactly its call. */
export function requireReceipt(options: RequireReceiptOptions) {
  const once = options.once ?? memorySeenStore();
  return (request: Request, response: Response, next: NextFunction): void => {
    verifyReceipt(request.get(RECEIPT_HEADER), {
      jwks: options.jwks,
      tool: typeof options.tool === 'string' ? options.tool : options.tool(request),
      arguments: options.arguments(request),
      once,
      ...(options.definition === undefined ? {} : { definition: options.definition }),
      ...(options.now === undefined ? {} : { now: options.now() }),
    }).then(
      (claims) => {
        response.locals['receipt'] = claims;
        next();
      },
      (error: unknown) => {
        if (!ReceiptError.is(error)) {
          next(error);
          return;
        }
        response.status(403).json({ error: error.message, code: error.code });
      },
    );
  };
}
