import { readFile } from 'node:fs/promises';
import { dirname, extname, resolve } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { WorkflowDefinition } from '@interlock/sdk-types';
import { InterlockError } from '../errors/interlock-error.js';
import { issuesFromZod, workflowInvalid } from './workflow-issues.js';
import { salvagedIssues } from './workflow-salvage.js';
import { validateWorkflow } from './workflow-validator.js';

const FILE_REFERENCE = /\.(toml|json)$/i;

/**
 * The workflows this process knows, by id. Loading a file validates it completely (schema,
 * graph, variables, expressions) and loads the files its SUBGRAPH nodes name.
 */
export class WorkflowRegistry {
  private readonly workflows = new Map<string, WorkflowDefinition>();

  /** @param toolExists when given, tools named by workflows must exist. */
  constructor(private readonly toolExists?: (name: string) => boolean) {}

  /** The workflow with this id, or a WORKFLOW_NOT_FOUND error that says how to load it. */
  get(id: string): WorkflowDefinition {
    const workflow = this.workflows.get(id);
    if (!workflow) {
      throw new InterlockError(
        'WORKFLOW_NOT_FOUND',
        `workflow "${id}" is not loaded in this process: call interlock.loadWorkflow(path) or registerWorkflow(definition) first`,
        { details: { workflowId: id } },
      );
    }
    return workflow;
  }

  find(id: string): WorkflowDefinition | undefined {
    return this.workflows.get(id);
  }

  /** Validates a definition given as data (a `WorkflowDefinitionInput`, or anything parsed from a file) and registers it. */
  register(input: unknown, source = 'workflow'): WorkflowDefinition {
    return this.accept(input, source, (reference) => this.workflows.get(reference));
  }

  /** Reads, validates and registers a TOML or JSON workflow file and the files it refers to. */
  async load(path: string): Promise<WorkflowDefinition> {
    return this.loadFile(resolve(path), []);
  }

  private async loadFile(path: string, loading: string[]): Promise<WorkflowDefinition> {
    if (loading.includes(path)) {
      throw workflowInvalid(path, [{ path: '(root)', message: `SUBGRAPH cycle: ${[...loading, path].join(' -> ')}` }]);
    }
    const raw = await readWorkflowFile(path);
    const children = new Map<string, WorkflowDefinition>();
    for (const reference of subgraphFileReferences(raw)) {
      if (!children.has(reference)) {
        children.set(reference, await this.loadFile(resolve(dirname(path), reference), [...loading, path]));
      }
    }
    return this.accept(raw, path, (reference) => children.get(reference) ?? this.workflows.get(reference));
  }

  private accept(
    input: unknown,
    source: string,
    lookup: (reference: string) => WorkflowDefinition | undefined,
  ): WorkflowDefinition {
    const unwrapped = unwrap(input);
    // Every problem in one run (F1): the layout, the schema's, and the graph's of the parts that fit.
    const layout = configLayoutIssue(unwrapped);
    const checked = layout === undefined ? unwrapped : withoutConfig(unwrapped);
    const parsed = WorkflowDefinition.safeParse(checked);
    if (!parsed.success) {
      const issues = [
        ...(layout === undefined ? [] : [layout]),
        ...issuesFromZod(parsed.error),
        ...salvagedIssues(checked, lookup, this.toolExists),
      ];
      throw workflowInvalid(source, issues);
    }
    const issues = [
      ...(layout === undefined ? [] : [layout]),
      ...validateWorkflow(parsed.data, lookup, this.toolExists),
    ];
    if (issues.length > 0) throw workflowInvalid(source, issues);
    const workflow = resolveSubgraphReferences(parsed.data, lookup);
    this.workflows.set(workflow.id, workflow);
    return workflow;
  }
}

async function readWorkflowFile(path: string): Promise<unknown> {
  const extension = extname(path).toLowerCase();
  if (extension !== '.toml' && extension !== '.json') {
    throw new InterlockError('WORKFLOW_INVALID', `${path}: a workflow file must end in .toml or .json`);
  }
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new InterlockError('WORKFLOW_NOT_FOUND', `cannot read workflow file ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  try {
    return extension === '.toml' ? parseToml(text) : JSON.parse(text);
  } catch (error) {
    const kind = extension === '.toml' ? 'TOML' : 'JSON';
    throw workflowInvalid(path, [{ path: '(file)', message: `not valid ${kind}: ${(error as Error).message}` }]);
  }
}

function subgraphFileReferences(raw: unknown): string[] {
  const nodes = (unwrap(raw) as { nodes?: unknown } | null)?.nodes;
  if (!Array.isArray(nodes)) return [];
  return nodes.flatMap((node: unknown) => {
    const candidate = node as { type?: unknown; config?: { workflow?: unknown } } | null;
    const reference = candidate?.config?.workflow;
    return candidate?.type === 'SUBGRAPH' && typeof reference === 'string' && FILE_REFERENCE.test(reference)
      ? [reference]
      : [];
  });
}

/** Rewrites SUBGRAPH references (file paths) to the ids of the workflows they loaded. */
function resolveSubgraphReferences(
  workflow: WorkflowDefinition,
  lookup: (reference: string) => WorkflowDefinition | undefined,
): WorkflowDefinition {
  return {
    ...workflow,
    nodes: workflow.nodes.map((node) =>
      node.type === 'SUBGRAPH'
        ? { ...node, config: { ...node.config, workflow: lookup(node.config.workflow)?.id ?? node.config.workflow } }
        : node,
    ),
  };
}

/**
 * Files may also put everything under a `[workflow]` table, and the config under
 * `[[workflow.config]]` (an array of one table in TOML), as seed 000's examples do.
 */
function unwrap(input: unknown): unknown {
  if (typeof input !== 'object' || input === null) return input;
  if ('nodes' in input) return singleConfig(input);
  const { workflow, $schema, ...rest } = input as { workflow?: unknown; $schema?: unknown };
  // Anything beside [workflow] is left for the schema to refuse, rather than silently dropped.
  if (typeof workflow !== 'object' || workflow === null || Object.keys(rest).length > 0) return input;
  return singleConfig($schema === undefined ? workflow : { $schema, ...workflow });
}

/** `[[workflow.config]]` with one table is the `[workflow.config]` table. */
function singleConfig(workflow: object): object {
  const { config } = workflow as { config?: unknown };
  return Array.isArray(config) && config.length === 1 ? { ...workflow, config: config[0] as unknown } : workflow;
}

/** The workflow without its `config` (checked on its own when its layout is wrong). */
function withoutConfig(workflow: unknown): unknown {
  const { config: _config, ...rest } = workflow as Record<string, unknown>;
  return rest;
}

const CONFIG_LAYOUT =
  '[workflow.config] (or [[workflow.config]] once) with timeout, maxSteps and a [workflow.config.toolApproval] table';

/** A config given as several `[[config]]` tables: refused with the layout that is accepted. */
function configLayoutIssue(workflow: unknown): { path: string; message: string } | undefined {
  const config = (workflow as { config?: unknown } | null)?.config;
  if (!Array.isArray(config)) return undefined;
  return {
    path: 'config',
    message: `config is one table, not ${config.length} [[config]] tables: write ${CONFIG_LAYOUT}`,
  };
}
