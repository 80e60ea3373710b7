import type { WorkflowDefinitionInput } from '@interlock/sdk-types';

type Node = WorkflowDefinitionInput['nodes'][number];
type Variable = NonNullable<WorkflowDefinitionInput['variables']>[number];

/**
 * A linear workflow START → …nodes → END, edges drawn in order. ROUTE nodes and LOOP
 * bodies draw their own; pass `edges` to add more.
 */
export function linearWorkflow(
  nodes: Node[],
  options: {
    id?: string;
    variables?: Variable[];
    edges?: { from: string; to: string }[];
    timeout?: number | string;
    maxSteps?: number;
    version?: string;
  } = {},
): WorkflowDefinitionInput {
  const all: Node[] = [
    { id: 'start', type: 'START' },
    ...nodes,
    { id: 'end', type: 'END', config: { output: '{{ output }}' } },
  ];
  const edges: { from: string; to: string }[] = [];
  for (let index = 0; index < all.length - 1; index += 1) {
    const node = all[index]!;
    if (node.type === 'ROUTE') continue;
    if (options.edges?.some((edge) => edge.from === node.id)) continue;
    edges.push({ from: node.id, to: all[index + 1]!.id });
  }
  return {
    id: options.id ?? 'test-workflow',
    name: 'Test workflow',
    version: options.version ?? '1',
    config: {
      ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
      ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }),
    },
    variables: [{ name: 'output', scope: 'thread' }, ...(options.variables ?? [])],
    nodes: all,
    edges: [...edges, ...(options.edges ?? [])],
  };
}

/** A USER_INTERACTION node that writes the answer into `output`. */
export function askNode(id = 'ask', extra: Record<string, unknown> = {}): Node {
  return {
    id,
    type: 'USER_INTERACTION',
    config: {
      operationType: 'UPDATE_VARIABLES',
      prompt: 'Your answer?',
      variables: [{ variableName: 'output', expression: '{{ input }}' }],
      ...extra,
    },
  } as Node;
}
