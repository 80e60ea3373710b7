import type { WorkflowDefinitionInput } from '@interlock/sdk-types';

/** The ids of one gate's three workflows (F56); `name` keeps gates of different agents apart in one store. */
export interface GateWorkflowIds {
  /** One thread per tool call: the call decided only, never run (decideOnly). */
  decision: string;
  /** One thread per pause that waits for a person: the framework's state, stored beside the decisions. */
  pause: string;
  /** One thread per pause, once every decision is in: runs the adapter's continuation once. */
  continuation: string;
}

/** The workflow ids of the gate called `name` (letters, digits, `_`, `.` or `-`). */
export function gateWorkflowIds(name: string): GateWorkflowIds {
  return {
    decision: `interlock-gate.${name}.decision`,
    pause: `interlock-gate.${name}.pause`,
    continuation: `interlock-gate.${name}.continue`,
  };
}

/** The name of the tool that runs gate `name`'s continuation (registered by the gate). */
export function continuationToolName(name: string): string {
  return `interlock-gate.${name}.continue`;
}

const end = (output?: string) => ({
  id: 'end',
  type: 'END' as const,
  config: output === undefined ? {} : { output },
});

/**
 * How long a person has to answer a gate's question by default: no deadline. Answering
 * hours later, from the inbox or the chat, is what the gate is for; an agent that stops
 * waiting cancels its question (`decide({ signal })`). A workflow's default of 30 s
 * refused every call a person took longer over.
 */
export const DEFAULT_GATE_APPROVAL_TIMEOUT_MS = 0;

/**
 * The three workflows of gate `name`. `approvalTimeoutMs` is how long a call waits for a
 * person (0: until answered); a deadline other than the default is part of each workflow's
 * version (`3-answer-within-600000ms`), so gates with different deadlines on one store each
 * serve their own threads.
 */
export function gateWorkflows(
  name: string,
  approvalTimeoutMs: number = DEFAULT_GATE_APPROVAL_TIMEOUT_MS,
): WorkflowDefinitionInput[] {
  const ids = gateWorkflowIds(name);
  // 3: a decision records the tool definition it was taken under (F62); 2: a question waits
  // until answered unless a deadline is given (1 had a workflow's 30 s).
  const version =
    approvalTimeoutMs === DEFAULT_GATE_APPROVAL_TIMEOUT_MS ? '3' : `3-answer-within-${approvalTimeoutMs}ms`;
  const config = { toolApproval: { autoApprovedTools: [], approvalTimeout: approvalTimeoutMs } };
  return [
    {
      id: ids.decision,
      name: "An agent's tool call, decided by Interlock",
      version,
      config,
      variables: [
        { name: 'toolName', scope: 'thread' },
        { name: 'toolInput', scope: 'thread' },
        { name: 'toolCallId', scope: 'thread' },
        { name: 'toolDefinitionHash', scope: 'thread' },
        { name: 'pauseId', scope: 'thread' },
        { name: 'approvedInput', scope: 'thread' },
      ],
      nodes: [
        { id: 'start', type: 'START' },
        {
          id: 'decide',
          type: 'TOOL',
          config: {
            tool: '{{ toolName }}',
            argumentsFrom: 'toolInput',
            outputVariable: 'approvedInput',
            decideOnly: true,
          },
        },
        end('{{ approvedInput }}'),
      ],
      edges: [
        { from: 'start', to: 'decide' },
        { from: 'decide', to: 'end' },
      ],
    },
    {
      id: ids.pause,
      name: "An agent's state, kept while people decide its tool calls",
      version,
      variables: [
        { name: 'state', scope: 'thread' },
        { name: 'decisionThreadIds', scope: 'thread' },
      ],
      nodes: [{ id: 'start', type: 'START' }, end()],
      edges: [{ from: 'start', to: 'end' }],
    },
    {
      id: ids.continuation,
      name: 'The agent, continued once its tool calls are decided',
      version,
      // A continuation that died mid-run asks a person about it: that question waits as long.
      config,
      variables: [
        { name: 'pauseId', scope: 'thread' },
        { name: 'result', scope: 'thread' },
      ],
      nodes: [
        { id: 'start', type: 'START' },
        {
          id: 'continue',
          type: 'TOOL',
          config: {
            tool: continuationToolName(name),
            arguments: { pauseId: '{{ pauseId }}' },
            outputVariable: 'result',
          },
        },
        end('{{ result }}'),
      ],
      edges: [
        { from: 'start', to: 'continue' },
        { from: 'continue', to: 'end' },
      ],
    },
  ] as WorkflowDefinitionInput[];
}
