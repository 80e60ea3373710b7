// A refund service that takes only calls Interlock approved (F63): every route is behind
// requireReceipt. `POST /refund` is the tool `refund` of an app (its body is the call's
// arguments); `GET /orders/:id` is a page Interlock's `http_fetch` tool reads (its argument
// is the URL, as the service is reached).
import express, { type Express } from 'express';
import { memorySeenStore, type ReceiptKeys } from '@interlock/receipts';
import { requireReceipt } from './require-receipt.js';

export interface RefundServiceOptions {
  jwks: ReceiptKeys;
  /** The URL the service is reached at, as Interlock's calls name it (`http://127.0.0.1:8080`). */
  publicUrl: () => string;
  now?: () => number;
}

/** A refund the service made, with who approved it. */
export interface Refund {
  orderId: string;
  amount: number;
  approvers: string[];
}

/** The service's Express app; `refunds` lists what it did, with who approved each. */
export function refundService(options: RefundServiceOptions): { app: Express; refunds: Refund[] } {
  const once = memorySeenStore();
  const refunds: Refund[] = [];
  const checked = { jwks: options.jwks, once, ...(options.now === undefined ? {} : { now: options.now }) };
  const app = express();
  app.use(express.json());
  app.post(
    '/refund',
    requireReceipt({ ...checked, tool: 'refund', arguments: (request) => request.body as unknown }),
    (request, response) => {
      const { orderId, amount } = request.body as { orderId: string; amount: number };
      const { approvers } = (response.locals as { receipt: { approvers: string[] } }).receipt;
      refunds.push({ orderId, amount, approvers });
      response.json({ refunded: orderId, approvers });
    },
  );
  app.get(
    '/orders/:id',
    requireReceipt({
      ...checked,
      tool: 'http_fetch',
      arguments: (request) => ({ url: `${options.publicUrl()}${request.originalUrl}` }),
    }),
    (request, response) => {
      response.json({ order: request.params.id, status: 'paid' });
    },
  );
  return { app, refunds };
}
