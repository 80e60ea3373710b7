import {
  VariableDeclaration,
  WorkflowConfig,
  WorkflowDefinition,
  WorkflowEdge,
  WorkflowNode,
} from '@interlock/sdk-types';
import type { WorkflowIssue } from './workflow-issues.js';
import { validateWorkflow, type SubworkflowLookup } from './workflow-validator.js';

/**
 * The graph and variable problems of a workflow that does not fit the schema (F1, issue 37),
 * so one run lists every problem, not the schema's first and the graph's in a later round.
 * The parts that fit (nodes, edges, variables, config, one by one) are checked as a
 * workflow, a node that does not stands in by its id; what a problem only says because a
 * part was left out (a variable that did not parse, what only a broken ROUTE reaches) is
 * not reported.
 */
export function salvagedIssues(
  raw: unknown,
  lookup: SubworkflowLookup,
  toolExists?: (name: string) => boolean,
): WorkflowIssue[] {
  if (typeof raw !== 'object' || raw === null) return [];
  const input = raw as Record<string, unknown>;
  // A node that does not fit stands in as an LLM node of its id (START and END as themselves):
  // edges and reachability through it are checked, its own problems are the schema's.
  const standIns = new Set<number>();
  const nodes = kept(
    input['nodes'],
    (value) => WorkflowNode.safeParse(value),
    (value, at) => {
      const { id, type } = (value ?? {}) as { id?: unknown; type?: unknown };
      if (typeof id !== 'string') return undefined;
      standIns.add(at);
      return type === 'START' || type === 'END' ? { id, type } : { id, type: 'LLM', config: {} };
    },
  );
  const edges = kept(input['edges'], (value) => WorkflowEdge.safeParse(value));
  const variables = kept(input['variables'], (value) => VariableDeclaration.safeParse(value));
  if (nodes.values.length === 0) return [];
  const config = WorkflowConfig.safeParse(input['config'] ?? {});
  const workflow = WorkflowDefinition.safeParse({
    id: 'salvaged',
    name: 'salvaged',
    nodes: nodes.values,
    edges: edges.values,
    variables: variables.values,
    ...(config.success ? { config: config.data } : {}),
  });
  if (!workflow.success) return [];
  const droppedNames = variables.dropped.flatMap((value) => {
    const name = (value as { name?: unknown } | null)?.name;
    return typeof name === 'string' ? [name] : [];
  });
  // A ROUTE or LOOP left out hides where it leads: what only it reaches is not "unreachable".
  const branchesLost = nodes.dropped.some((value) => {
    const type = (value as { type?: unknown } | null)?.type;
    return type === 'ROUTE' || type === 'LOOP';
  });
  const places = { nodes: nodes.indexes, edges: edges.indexes, variables: variables.indexes };
  /** A place in the parts that fit, as the place in the file (`nodes[2]` → `nodes[3]`). */
  const remap = (text: string): string =>
    text.replace(
      /\b(nodes|edges|variables)\[(\d+)\]/g,
      (_all, list: keyof typeof places, index: string) => `${list}[${places[list][Number(index)] ?? index}]`,
    );
  return validateWorkflow(workflow.data, lookup, toolExists)
    .filter(({ path, message }) => {
      const node = /^nodes\[(\d+)\]/.exec(path)?.[1];
      // Of a stand-in, only what is true of any node of its id: unreachable, or a duplicate id.
      if (node !== undefined && standIns.has(Number(node)) && !/unreachable from START|duplicate node id/.test(message))
        return false;
      if (
        droppedNames.some((name) => message.includes(`"${name}"`) || new RegExp(`\\b${escape(name)}\\b`).test(message))
      )
        return false;
      if (branchesLost && /unreachable from START/.test(message)) return false;
      return config.success || !path.startsWith('config');
    })
    .map((issue) => ({ path: remap(issue.path), message: remap(issue.message) }));
}

/**
 * The items of a list that parse, with their places in the list, and those that do not;
 * `standIn` may give an item that does not parse a stand-in (its place is in `standIns`).
 */
function kept(
  list: unknown,
  parse: (value: unknown) => { success: boolean },
  standIn?: (value: unknown, at: number) => unknown,
): { values: unknown[]; indexes: number[]; dropped: unknown[] } {
  const values: unknown[] = [];
  const indexes: number[] = [];
  const dropped: unknown[] = [];
  if (!Array.isArray(list)) return { values, indexes, dropped };
  list.forEach((value: unknown, index) => {
    if (parse(value).success) {
      values.push(value);
      indexes.push(index);
      return;
    }
    dropped.push(value);
    const stand = standIn?.(value, values.length);
    if (stand === undefined) return;
    values.push(stand);
    indexes.push(index);
  });
  return { values, indexes, dropped };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
