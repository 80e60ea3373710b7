import { expect } from 'vitest';
import { builtinTools, createInterlock, defineHandler, reject, type UserInteractionRequest } from '../index.js';
import { scriptedModel } from '../testing/index.js';
import { linearWorkflow } from './workflows.js';

/** A tool approval a person was asked for. */
type Asked = NonNullable<UserInteractionRequest['toolApproval']>;

/**
 * The model proposes `commands` to the bash tool in one turn, in yolo (F24, F25), in
 * `workspace`; a person refuses every call they are asked about, with `reason`, and the
 * workflow `id` completes. What the person was asked about, in order.
 */
export async function refusedInYolo(
  workspace: string,
  commands: readonly string[],
  { id, reason }: { id: string; reason: string },
): Promise<Asked[]> {
  const asked: UserInteractionRequest[] = [];
  const interlock = await createInterlock({
    tools: builtinTools,
    workspaceRoot: workspace,
    approval: { mode: 'yolo' },
    models: {
      default: scriptedModel([
        {
          text: '',
          toolCalls: commands.map((command, index) => ({ id: `c${index}`, name: 'bash', arguments: { command } })),
        },
        'Done.',
      ]),
    },
    handlers: {
      cli: defineHandler({
        handle: async (request: UserInteractionRequest) => {
          asked.push(request);
          return reject(reason);
        },
      }),
    },
  });
  try {
    const workflow = interlock.registerWorkflow(
      linearWorkflow([{ id: 'agent', type: 'LLM', config: { prompt: 'Work', tools: ['bash'] } }], { id }),
    );
    expect(await (await interlock.start(workflow, { channel: 'cli' })).done()).toMatchObject({
      status: 'completed',
    });
    return asked.flatMap((request) => (request.toolApproval ? [request.toolApproval] : []));
  } finally {
    await interlock.close();
  }
}
