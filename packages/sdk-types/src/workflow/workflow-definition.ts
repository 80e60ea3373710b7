import { z } from 'zod';
import { NodeId, WorkflowNode } from '../nodes/node-configs.js';
import { VariableDeclaration } from './variables.js';
import { WorkflowConfig } from './workflow-config.js';

/** A directed edge. ROUTE nodes branch through their config instead. */
export const WorkflowEdge = z.strictObject({ from: NodeId, to: NodeId });
export type WorkflowEdge = z.infer<typeof WorkflowEdge>;

/** A workflow as written in TOML or JSON (F1). */
export const WorkflowDefinition = z.strictObject({
  $schema: z.string().optional(),
  id: z.string().regex(/^[A-Za-z0-9_.-]+$/, 'expected an id: letters, digits, _, . or -'),
  name: z.string().min(1),
  version: z.string().min(1).default('1'),
  description: z.string().optional(),
  config: WorkflowConfig.default({
    timeout: 0,
    maxSteps: 1_000,
    toolApproval: { autoApprovedTools: [], approvalTimeout: 30_000 },
  }),
  variables: z.array(VariableDeclaration).default([]),
  nodes: z.array(WorkflowNode).min(1, 'a workflow needs at least a START and an END node'),
  edges: z.array(WorkflowEdge).default([]),
});
export type WorkflowDefinition = z.infer<typeof WorkflowDefinition>;
/** The shape accepted before defaults are applied (what a file may omit). */
export type WorkflowDefinitionInput = z.input<typeof WorkflowDefinition>;
