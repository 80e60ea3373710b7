import { z } from 'zod';
import { AuditLog } from '../../audit/audit-log.js';
import type { Clock } from '../../engine/clock.js';
import type { EmittedEvent, NodeExecutionContext } from '../../engine/node-executor.js';
import { VariableScopes } from '../../engine/variable-scopes.js';
import type { InteractionGateway } from '../../interaction/interaction-gateway.js';
import { InMemoryCheckpointStore } from '../../persistence/memory/in-memory-checkpoint-store.js';
import { resolveApprovalOptions, type ApprovalOptions } from '../../policy/approval-options.js';
import { ApprovalPolicy } from '../../policy/approval-policy.js';
import type { ShellClassifierPort } from '../../policy/decide-approval.js';
import { MessageBus } from '../../policy/message-bus.js';
import { CREATED_AT, present, threadRecord, workflowDefinition } from '../../testing/conformance/store-records.js';
import { defineTool } from '../define-tool.js';
import { ToolExecution } from '../tool-execution.js';
import { ToolPins } from '../tool-pins.js';
import { ToolRegistry } from '../tool-registry.js';
import { TurnRecorder } from '../turn-recorder.js';

/*
 * The parts a turn's stages are built from, by hand: an in-memory store with one thread
 * claimed by this process, the policy, the audit, and a node's context that records what
 * it is told (events, applied answers, released waits).
 */

export const clock: Clock = { now: () => Date.parse(CREATED_AT) };
/** Shell rules that find every command safe. */
export const safeShell: ShellClassifierPort = {
  classify: () => ({ verdict: 'safe', rule: 'shell:safe', reasons: [] }),
};

/** A MEDIUM-risk write (asks by default), its runs recorded. */
export function noteTool(runs: string[] = []) {
  return defineTool({
    name: 'note',
    description: 'Writes a note',
    category: 'write',
    riskLevel: 'MEDIUM',
    parameters: z.object({ text: z.string() }),
    execute: async ({ text }) => {
      runs.push(text);
      return `noted ${text}`;
    },
  });
}

/** A LOW-risk read (allowed by default). */
export const lookupTool = defineTool({
  name: 'lookup',
  description: 'Looks a word up',
  category: 'read',
  riskLevel: 'LOW',
  parameters: z.object({ word: z.string() }),
  execute: async ({ word }) => `${word}: a word`,
});

export async function turnParts(approval: ApprovalOptions = {}) {
  const runs: string[] = [];
  const tools = new ToolRegistry([noteTool(runs), lookupTool]);
  const store = new InMemoryCheckpointStore();
  const thread = await store.createThread(threadRecord({ epoch: 1 }));
  const frame = present(thread.frames[0]);
  const workflow = workflowDefinition();
  const events: EmittedEvent[] = [];
  const applied: string[] = [];
  const released: string[] = [];
  const context: NodeExecutionContext = {
    thread,
    frame,
    workflow,
    scopes: new VariableScopes(thread, frame, workflow, {}),
    signal: new AbortController().signal,
    emit: (event) => events.push(event),
    nodeState: () => undefined,
    setNodeState: () => undefined,
    checkpoint: async () => undefined,
    checkpointLater: () => undefined,
    answerApplied: (interactionId) => applied.push(interactionId),
  };
  const policy = new ApprovalPolicy(tools, resolveApprovalOptions(approval), safeShell, store, clock);
  const pins = new ToolPins(store);
  const recorder = new TurnRecorder(tools, new AuditLog(store, () => clock.now()), pins, clock);
  // Only release() is used by the stages built here: the waits themselves are the gateway's tests'.
  const gateway = { release: (interactionId: string) => released.push(interactionId) } as unknown as InteractionGateway;
  return {
    store,
    tools,
    runs,
    context,
    events,
    applied,
    released,
    policy,
    pins,
    recorder,
    gateway,
    bus: new MessageBus(),
    execution: new ToolExecution(store, clock, '/workspace'),
    eventTypes: () => events.map((event) => event.type),
  };
}
