import { ChatChannel } from '../chat-channel.js';
import {
  createInterlock,
  defineTool,
  scriptedModel,
  type Clock,
  type Interlock,
  type ModelRequest,
} from '@interlock/core';
import type { InterlockEvent, WorkflowDefinitionInput } from '@interlock/sdk-types';
import { z } from 'zod';

/** What a `deploy` call's note says: a mention, markup that hides a link, and a direction override. */
export const HOSTILE_NOTE = '<!channel> *now* <https://evil.example|docs> ok\u202Egnp.exe';

/**
 * The parts of a chat agent whose only tool, `deploy`, always asks (HIGH risk) and counts its
 * runs: "deploy <service>" proposes it (its note hostile to chat markup), a tool result is
 * reported as `Result: …`, anything else is echoed. For a worker's test: pass them to `createWorker`.
 */
export function deployChatParts() {
  const runs: { service: string; note: string }[] = [];
  const deploy = defineTool({
    name: 'deploy',
    description: 'Deploys a service',
    category: 'command',
    riskLevel: 'HIGH',
    parameters: z.object({ service: z.string(), note: z.string() }),
    execute: async (args) => {
      runs.push(args);
      return `deployed ${args.service}`;
    },
  });
  const model = scriptedModel((request: ModelRequest) => {
    const last = request.messages.at(-1);
    if (last?.role === 'tool') return `Result: ${last.content}`;
    const text = last?.role === 'user' ? last.content : '';
    const service = /^deploy (\S+)$/.exec(text)?.[1];
    if (service === undefined) return `You said: "${text}"`;
    const turn = request.messages.filter((message) => message.role === 'user').length;
    return {
      text: '',
      toolCalls: [{ id: `deploy-${turn}`, name: 'deploy', arguments: { service, note: HOSTILE_NOTE } }],
    };
  });
  return { runs, tool: deploy, model, workflow: DEPLOY_CHAT };
}

/**
 * A real Interlock (in memory) with the deploy chat and its chat channel; `mallory` may not
 * approve. A call waits 10 minutes for its approval, measured on `options.clock` (default:
 * the wall clock): move a test's clock on and call `interlock.expireOverdue()` to time it out.
 */
export async function createDeployChat(options: { clock?: Clock } = {}) {
  const { runs, tool, model } = deployChatParts();
  const interlock = await createInterlock({
    models: { default: model },
    tools: [tool],
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  interlock.registerWorkflow(DEPLOY_CHAT);
  const chat = new ChatChannel({ interlock, workflow: DEPLOY_CHAT.id, canApprove: (author) => author !== 'mallory' });
  interlock.setHandler(chat.channel, chat.handler);
  return {
    interlock,
    chat,
    runs,
    model,
    close: async () => {
      chat.close();
      await interlock.close();
    },
  };
}

const DEPLOY_CHAT: WorkflowDefinitionInput = {
  id: 'deploy-chat',
  name: 'Deploy chat',
  version: '1',
  config: { timeout: 0, maxSteps: 100, toolApproval: { autoApprovedTools: [], approvalTimeout: '10m' } },
  variables: [{ name: 'turns', scope: 'thread', default: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] }],
  nodes: [
    { id: 'start', type: 'START' },
    { id: 'loop', type: 'LOOP', config: { items: 'turns', itemVariable: 'turn', body: 'listen', maxIterations: 10 } },
    {
      id: 'listen',
      type: 'USER_INTERACTION',
      config: {
        operationType: 'ADD_MESSAGE',
        prompt: 'Your message',
        timeout: 0,
        message: { role: 'user', contentTemplate: '{{ input }}' },
      },
    },
    { id: 'agent', type: 'LLM', config: { tools: ['deploy'], maxRounds: 4 } },
    { id: 'end', type: 'END' },
  ],
  edges: [
    { from: 'start', to: 'loop' },
    { from: 'loop', to: 'end' },
    { from: 'listen', to: 'agent' },
    { from: 'agent', to: 'loop' },
  ],
};

/** Resolves at the next event of `interlock` that `test` accepts. */
export function nextEvent(interlock: Interlock, test: (event: InterlockEvent) => boolean): Promise<InterlockEvent> {
  return new Promise((resolve) => {
    const subscription = interlock.events$.subscribe({
      next: (event) => {
        if (!test(event)) return;
        subscription.unsubscribe();
        resolve(event);
      },
    });
  });
}
