import type { WorkflowDefinitionInput } from '@interlock/sdk-types';

/** START → a decide-only TOOL node about Claude Code's `Write` at `path` (as `interlock mcp serve` asks) → END. */
export function agentWrite(id: string, path: string): WorkflowDefinitionInput {
  return {
    id,
    name: "An agent's write",
    version: '1',
    config: { toolApproval: { autoApprovedTools: [], approvalTimeout: '1h' } },
    variables: [{ name: 'approved', scope: 'thread' }],
    nodes: [
      { id: 'start', type: 'START' },
      {
        id: 'decide',
        type: 'TOOL',
        config: {
          tool: 'Write',
          arguments: { file_path: path, content: 'draft' },
          outputVariable: 'approved',
          decideOnly: true,
        },
      },
      { id: 'end', type: 'END', config: { output: '{{ approved }}' } },
    ],
    edges: [
      { from: 'start', to: 'decide' },
      { from: 'decide', to: 'end' },
    ],
  };
}
