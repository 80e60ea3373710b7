import {
  builtinTools,
  createWorker,
  defineTool,
  scriptedModel,
  type Clock,
  type InterlockWorker,
  type LoadedProjectConfig,
} from '@interlock/core';
import type { WorkflowDefinitionInput } from '@interlock/sdk-types';
import { z } from 'zod';
import { hashToken } from '../../src/server/auth/approvers.js';
import { createWebServer } from '../../src/server/create-web-server.js';
import { createDeploymentInterlock } from '../../src/deployment/deployment-interlock.js';

/*
 * The parts of a deployment the answer-outcome tests put together in this process: workers
 * (createWorker, real jobs on the real store) serving a version of a workflow, and web
 * servers of a deployment (the real fastify server on a port) on the same store.
 */

export type Store = { type: 'postgres'; url: string; schema: string } | { type: 'sqlite'; path: string };

/** Approvers of every server: name → token. */
export const TOKENS = { ada: 'token-of-ada-0123456789', bob: 'token-of-bob-0123456789' } as const;

/** START → a model that proposes `tool` with `args` → END; calls wait `approvalTimeout` for an approver. */
export function agentWorkflow(
  version: string,
  tool = 'refund',
  args: Record<string, unknown> = { order: 'A-1', cents: 1299 },
  approvalTimeout = '1h',
): WorkflowDefinitionInput {
  return {
    id: `agent-${tool}`,
    name: `An agent that calls ${tool}`,
    version,
    config: { toolApproval: { autoApprovedTools: [], approvalTimeout } },
    variables: [{ name: 'output', scope: 'thread' }],
    nodes: [
      { id: 'start', type: 'START' },
      {
        id: 'agent',
        type: 'LLM',
        config: { systemPrompt: JSON.stringify(args), tools: [tool], outputVariable: 'output' },
      },
      { id: 'end', type: 'END', config: { output: `v${version}: {{ output }}` } },
    ],
    edges: [
      { from: 'start', to: 'agent' },
      { from: 'agent', to: 'end' },
    ],
  };
}

const refund = defineTool({
  name: 'refund',
  description: 'Refunds an order',
  category: 'network',
  riskLevel: 'HIGH',
  parameters: z.object({ order: z.string(), cents: z.number().int() }),
  execute: async ({ cents }) => `refunded ${cents}`,
});

/** Proposes the call its system prompt holds (the tool of the node), then ends with the tool's result. */
const model = scriptedModel((request) => {
  const result = request.messages.find((message) => message.role === 'tool');
  if (result !== undefined) return String(result.content);
  const system = request.messages.find((message) => message.role === 'system');
  const tool = request.tools?.[0]?.name ?? 'refund';
  return { text: 'On it.', toolCalls: [{ id: 'call-1', name: tool, arguments: JSON.parse(String(system?.content)) }] };
});

/** A worker serving `workflows`, with the refund tool and the built-in tools; the threads it took forward. */
export async function startWorker(
  store: Store,
  workflows: WorkflowDefinitionInput[],
  closers: (() => Promise<unknown>)[],
  options: { config?: LoadedProjectConfig; leaseMs?: number } = {},
): Promise<{ worker: InterlockWorker; taken: string[] }> {
  const worker = await createWorker({
    store,
    workflows,
    tools: [refund, ...builtinTools],
    models: { default: model },
    pollMs: 50,
    ...options,
  });
  closers.push(() => worker.stop());
  const taken: string[] = [];
  worker.interlock.events$.subscribe((event) => {
    if (event.type === 'THREAD_RESUMED') taken.push(event.threadId);
  });
  return { worker, taken };
}

/** A web server of the deployment (no --demo) on `store`, listening on a free port. */
export async function startWebServer(
  store: Store,
  closers: (() => Promise<unknown>)[],
  options: { config?: LoadedProjectConfig; clock?: Clock } = {},
): Promise<{ baseUrl: string }> {
  const web = await createDeploymentInterlock({ store, ...options });
  const app = await createWebServer({
    interlock: web.interlock,
    store: web.store,
    approvers: Object.entries(TOKENS).map(([name, token]) => ({ name, tokenSha256: hashToken(token) })),
    workflows: web.workflows,
    expireDeadlines: false,
    rateLimits: { perMinute: 100_000 },
    ...(options.clock === undefined ? {} : { now: () => (options.clock as Clock).now() }),
  });
  const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  closers.push(
    () => web.close(),
    () => app.close(),
  );
  return { baseUrl };
}
