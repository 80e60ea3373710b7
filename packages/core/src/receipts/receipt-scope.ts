import { AsyncLocalStorage } from 'node:async_hooks';
import { hashArguments } from '../policy/canonical-arguments.js';

/** A receipt handed to code that runs a call, with what it approves. */
export interface ScopedReceipt {
  token: string;
  toolName: string;
  /** SHA-256 of the canonical JSON of the arguments it approves. */
  argumentsHash: string;
}

/** A receipt at hand for the call of `toolName` with `args`. */
export function receiptInScope(token: string, toolName: string, args: unknown): ScopedReceipt {
  return { token, toolName, argumentsHash: hashArguments(args) };
}

const scope = new AsyncLocalStorage<readonly ScopedReceipt[]>();

/**
 * Runs `work` with `receipts` at hand: code it calls (a tool's `execute`, a framework's tool
 * function, a helper that calls the service) reads them with {@link currentReceipt}.
 */
export function runWithReceipts<T>(receipts: readonly ScopedReceipt[], work: () => T): T {
  return scope.run(receipts, work);
}

/**
 * The approval receipt of the call being run (F63), to forward to the service it calls (the
 * `Interlock-Receipt` header, MCP `_meta["interlock/receipt"]`). Inside a tool run by an
 * adapter or by Interlock. With `call`, the receipt of exactly that call (its tool and
 * arguments); without it, the only receipt at hand. Undefined when there is none.
 */
export function currentReceipt(call?: { toolName: string; arguments: unknown }): string | undefined {
  const receipts = scope.getStore() ?? [];
  if (call === undefined) return receipts.length === 1 ? receipts[0]?.token : undefined;
  let hash: string;
  try {
    hash = hashArguments(call.arguments);
  } catch {
    return undefined;
  }
  return receipts.find((receipt) => receipt.toolName === call.toolName && receipt.argumentsHash === hash)?.token;
}
