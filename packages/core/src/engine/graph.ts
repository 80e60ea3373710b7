import type { WorkflowDefinition, WorkflowNode } from '@interlock/sdk-types';
import { InterlockError } from '../errors/interlock-error.js';

export function findNode(workflow: WorkflowDefinition, nodeId: string): WorkflowNode {
  const node = workflow.nodes.find((candidate) => candidate.id === nodeId);
  if (!node) {
    throw new InterlockError('WORKFLOW_INVALID', `workflow "${workflow.id}" has no node "${nodeId}"`);
  }
  return node;
}

export function startNodeId(workflow: WorkflowDefinition): string {
  const start = workflow.nodes.find((node) => node.type === 'START');
  if (!start) throw new InterlockError('WORKFLOW_INVALID', `workflow "${workflow.id}" has no START node`);
  return start.id;
}

/** The target of a node's single outgoing edge (validated at load time). */
export function edgeTarget(workflow: WorkflowDefinition, nodeId: string): string {
  const edge = workflow.edges.find((candidate) => candidate.from === nodeId);
  if (!edge)
    throw new InterlockError('WORKFLOW_INVALID', `node "${nodeId}" of workflow "${workflow.id}" has no outgoing edge`);
  return edge.to;
}
