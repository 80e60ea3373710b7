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

/** The three workflows of gate `name`. */
export function gateWorkflows(name: string): WorkflowDefinitionInput[] {
  const ids = gateWorkflowIds(name);
  return [
    {
      id: ids.decision,
      name: "An agent's tool call, decided by Interlock",
      version: '1',
      variables: [
        { name: 'toolName', scope: 'thread' },
        { name: 'toolInput', scope: 'thread' },
        { name: 'toolCallId', scope: 'thread' },
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
      version: '1',
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
      version: '1',
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
