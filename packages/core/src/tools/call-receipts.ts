import type { NodeExecutionContext } from '../engine/node-executor.js';
import type { IssuedReceipt, Receipts } from '../receipts/receipts.js';
import type { Tool } from './define-tool.js';
import { argumentsOf, type ReadyCall } from './turn-state.js';

/**
 * The receipts of the calls about to start (F63): one per call approved by a person, a rule
 * or a callback, signed here, kept in the commit that starts the calls, and handed to each
 * call as it runs. None when receipts are off, or for a call approved before they existed.
 */
export async function receiptsOf(
  receipts: Receipts | undefined,
  starting: readonly { call: ReadyCall; tool: Tool | undefined }[],
  context: NodeExecutionContext,
): Promise<(IssuedReceipt | undefined)[]> {
  if (receipts?.enabled !== true) return starting.map(() => undefined);
  return Promise.all(
    starting.map(({ call, tool }) =>
      tool === undefined || call.grant === undefined
        ? Promise.resolve(undefined)
        : receipts.issue({
            threadId: context.thread.threadId,
            toolCallId: call.id,
            toolName: tool.name,
            definitionHash: tool.definitionHash,
            arguments: argumentsOf(call),
            argumentsDiffer: call.finalArguments !== undefined,
            epoch: context.fence.epoch,
            grant: call.grant,
          }),
    ),
  );
}
