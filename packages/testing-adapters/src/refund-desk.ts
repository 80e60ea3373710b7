import {
  EXPECTED_REFUSALS,
  refusalsOf,
  startReceiptService,
  type ReceiptService,
  type ScriptedCompletion,
} from '@interlock/core/testing';
import { afterEach, expect } from 'vitest';

/** The call the receipts cases approve: a refund of order A-42. */
export const REFUND_ARGUMENTS = { orderId: 'A-42', amount: 120 };

/** The model's turns of the receipts cases (chat completions): one refund call, then its text. */
export const REFUND_TURNS: ScriptedCompletion[] = [
  { toolCalls: [{ id: 'call_1', name: 'refund', arguments: REFUND_ARGUMENTS }] },
  { text: 'Refunded.' },
];

/**
 * The refund service behind an agent's refund tool (F63): it refuses every call without a
 * valid approval receipt. Closed after each test.
 */
export function refundDesk() {
  let service: ReceiptService | undefined;
  const receipts: string[] = [];
  afterEach(async () => {
    await service?.close();
    service = undefined;
    receipts.length = 0;
  });
  const started = (): ReceiptService => {
    if (service === undefined) throw new Error('the refund service is not started: call open() first');
    return service;
  };
  return {
    get service(): ReceiptService {
      return started();
    },
    /** Starts the service, checking receipts against the gate's keys. */
    async open(jwks: Parameters<typeof startReceiptService>[0]): Promise<ReceiptService> {
      service = await startReceiptService(jwks);
      return service;
    },
    /** What the refund tool does: calls the service as `tool` with the receipt its call ran with; what it answered. */
    async refund(args: unknown, receipt: string | undefined, tool = 'refund'): Promise<string> {
      if (receipt !== undefined) receipts.push(receipt);
      const answer = await started().call(tool, args, receipt);
      return answer.accepted === undefined ? `refused: ${String(answer.refused)}` : 'refunded';
    },
    /** The service took the approved refund, approved by web:ada, and refuses the same call made any other way. */
    async expectOnlyTheApprovedRefund(tool = 'refund'): Promise<void> {
      expect(started().calls.map((call) => call.accepted?.approvers)).toEqual([['web:ada']]);
      expect(
        await refusalsOf(started(), { tool, arguments: REFUND_ARGUMENTS, receipt: receipts[0]! }, { amount: 1200 }),
      ).toEqual(EXPECTED_REFUSALS);
    },
  };
}
