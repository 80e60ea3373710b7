import { z } from 'zod';
import { VariableAssignment, VariableName } from '../workflow/variables.js';
import { UserInteractionNodeConfig } from '../interaction/user-interaction-node-config.js';

export const NodeId = z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, 'expected a node id: letters, digits, _ or -');

export const StartNodeConfig = z.strictObject({});
export const EndNodeConfig = z.strictObject({
  /** Template of the thread's result, e.g. `{{ plan }}`. */
  output: z.string().optional(),
});

/** Calls a model with the thread's conversation. */
export const LlmNodeConfig = z.strictObject({
  /** Name of a model given to `createInterlock({ models })`. */
  model: z.string().default('default'),
  systemPrompt: z.string().optional(),
  /** Template appended to the conversation as a user message before the call. */
  prompt: z.string().optional(),
  /** Declared variable that receives the model's text answer. */
  outputVariable: VariableName.optional(),
  /** Names of registered tools the model may call. */
  tools: z.array(z.string()).default([]),
  maxRounds: z.number().int().positive().default(10),
  maxToolCalls: z.number().int().positive().default(50),
});

/** One branch of a ROUTE: `condition` is a CEL expression over the variables in scope. */
export const RouteBranch = z.strictObject({ condition: z.string().min(1), to: NodeId });
export const RouteNodeConfig = z.strictObject({
  branches: z.array(RouteBranch).default([]),
  /** Where to go when no branch matches. Required (F6). */
  default: NodeId,
});

export const VariableNodeConfig = z.strictObject({
  assignments: z.array(VariableAssignment).min(1, 'a VARIABLE node needs at least one assignment'),
});

/** Calls one tool directly; the call goes through the approval pipeline. */
export const ToolNodeConfig = z
  .strictObject({
    /** The tool's name, or a template that gives it at run time (`{{ toolName }}`); the call is decided like any. */
    tool: z.string().min(1),
    /** Each value is a template over the variables in scope. */
    arguments: z.record(z.string(), z.unknown()).default({}),
    /** Takes the whole arguments object from this variable instead (it must hold an object). */
    argumentsFrom: VariableName.optional(),
    outputVariable: VariableName.optional(),
    /**
     * Decide only, never run: the call goes through the approval pipeline (rules, modes, a
     * person) and the node's output is the arguments it was approved with (an approver's edit
     * included); the tool's `execute` is never called, whatever tool the name resolves to.
     * A call refused (by a rule or a person) or left unanswered ends the node with `null`
     * instead of failing it: the audit says who refused it and why. An approval service
     * (`interlock mcp serve`, the framework adapters) decides this way.
     */
    decideOnly: z.boolean().default(false),
  })
  .refine((config) => config.argumentsFrom === undefined || Object.keys(config.arguments).length === 0, {
    error: 'a TOOL node takes its arguments from `arguments` or from `argumentsFrom`, not both',
    path: ['argumentsFrom'],
  });

/**
 * Runs the nodes from `body` once per item. The body's last node has an edge back to
 * the LOOP node; the LOOP node's own edge is taken when the items are exhausted.
 */
export const LoopNodeConfig = z.strictObject({
  /** CEL expression that yields a list. */
  items: z.string().min(1),
  itemVariable: VariableName.default('item'),
  indexVariable: VariableName.default('index'),
  body: NodeId,
  maxIterations: z.number().int().positive().default(1_000),
});

/** Runs another workflow in its own subgraph scope, with inputs and outputs mapped explicitly. */
export const SubgraphNodeConfig = z.strictObject({
  /** A workflow file path (relative to this file) or the id of a registered workflow. */
  workflow: z.string().min(1),
  /** Child variable name → template over the parent's variables. */
  input: z.record(z.string(), z.string()).default({}),
  /** Parent variable name → template over the child's variables when it ends. */
  output: z.record(z.string(), z.string()).default({}),
});

const node = <T extends string, C extends z.ZodType>(type: T, config: C) =>
  z.strictObject({
    id: NodeId,
    type: z.literal(type),
    name: z.string().optional(),
    description: z.string().optional(),
    config,
  });

/** A node of a workflow graph (F2). */
export const WorkflowNode = z.discriminatedUnion('type', [
  node('START', StartNodeConfig.default({})),
  node('END', EndNodeConfig.default({})),
  node('LLM', LlmNodeConfig),
  node('USER_INTERACTION', UserInteractionNodeConfig),
  node('ROUTE', RouteNodeConfig),
  node('VARIABLE', VariableNodeConfig),
  node('TOOL', ToolNodeConfig),
  node('LOOP', LoopNodeConfig),
  node('SUBGRAPH', SubgraphNodeConfig),
]);
export type WorkflowNode = z.infer<typeof WorkflowNode>;
export type NodeType = WorkflowNode['type'];
export type NodeOfType<T extends NodeType> = Extract<WorkflowNode, { type: T }>;

export type StartNodeConfig = z.infer<typeof StartNodeConfig>;
export type EndNodeConfig = z.infer<typeof EndNodeConfig>;
export type LlmNodeConfig = z.infer<typeof LlmNodeConfig>;
export type RouteBranch = z.infer<typeof RouteBranch>;
export type RouteNodeConfig = z.infer<typeof RouteNodeConfig>;
export type VariableNodeConfig = z.infer<typeof VariableNodeConfig>;
export type ToolNodeConfig = z.infer<typeof ToolNodeConfig>;
export type LoopNodeConfig = z.infer<typeof LoopNodeConfig>;
export type SubgraphNodeConfig = z.infer<typeof SubgraphNodeConfig>;
export type NodeId = z.infer<typeof NodeId>;
