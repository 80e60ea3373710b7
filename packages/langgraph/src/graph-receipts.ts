import {
  receiptInScope,
  type ApprovalGate,
  type GateDecision,
  type GatePending,
  type ScopedReceipt,
} from '@interlock/core';
import { callsOf, fitting, type GraphInterrupt, type GraphTool } from './graph-decisions.js';

/**
 * The approval receipts of the calls a resume lets run (F63): one per action request
 * approved exactly as it stands (tool, arguments after any edit, definition), signed right
 * before the graph runs them, for the tools to read with `currentReceipt()`.
 */
export async function receiptsOfResume(
  gate: ApprovalGate,
  interrupts: readonly GraphInterrupt[],
  decisions: readonly (GateDecision | GatePending)[],
  tools: readonly GraphTool[],
): Promise<ScopedReceipt[]> {
  const receipts = await Promise.all(
    callsOf(interrupts).map(async (call, index) => {
      const given = decisions[index];
      if (given === undefined || !gate.decidedExactly(given, call)) return undefined;
      const decision = await fitting(given, tools);
      if (decision.status !== 'approved') return undefined;
      const runs = { toolName: decision.toolName, arguments: decision.arguments };
      const receipt = await gate.receipt(decision, runs);
      return receipt === undefined ? undefined : receiptInScope(receipt, runs.toolName, runs.arguments);
    }),
  );
  return receipts.filter((receipt): receipt is ScopedReceipt => receipt !== undefined);
}
