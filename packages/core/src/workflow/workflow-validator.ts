import type { VariableDeclaration, WorkflowDefinition, WorkflowNode } from '@interlock/sdk-types';
import { checkExpression, conditionExpression, stringsIn, templateExpressions } from '../expressions/expressions.js';
import type { WorkflowIssue } from './workflow-issues.js';

/** Looks up a workflow that a SUBGRAPH node refers to. */
export type SubworkflowLookup = (reference: string) => WorkflowDefinition | undefined;

/**
 * Checks what the schema cannot: the graph (ids, edges, reachability, branches) and the
 * variables (every write and every expression refers to a declared variable).
 */
export function validateWorkflow(
  workflow: WorkflowDefinition,
  lookup: SubworkflowLookup,
  toolExists?: (name: string) => boolean,
): WorkflowIssue[] {
  const issues: WorkflowIssue[] = [];
  const report = (path: string, message: string) => issues.push({ path, message });
  if (toolExists) checkTools(workflow, toolExists, report);
  const indexById = new Map<string, number>();

  workflow.nodes.forEach((node, index) => {
    const first = indexById.get(node.id);
    if (first === undefined) indexById.set(node.id, index);
    else report(`nodes[${index}].id`, `duplicate node id "${node.id}" (also nodes[${first}])`);
  });
  const starts = workflow.nodes.filter((node) => node.type === 'START');
  if (starts.length !== 1) report('nodes', `expected exactly one START node, found ${starts.length}`);
  if (!workflow.nodes.some((node) => node.type === 'END')) report('nodes', 'expected at least one END node');

  const outgoing = new Map<string, number[]>();
  workflow.edges.forEach((edge, index) => {
    if (!indexById.has(edge.from)) report(`edges[${index}].from`, `unknown node "${edge.from}"`);
    if (!indexById.has(edge.to)) report(`edges[${index}].to`, `unknown node "${edge.to}"`);
    outgoing.set(edge.from, [...(outgoing.get(edge.from) ?? []), index]);
  });

  const declarations = new Map<string, VariableDeclaration>();
  workflow.variables.forEach((declaration, index) => {
    if (declarations.has(declaration.name))
      report(`variables[${index}].name`, `duplicate variable "${declaration.name}"`);
    declarations.set(declaration.name, declaration);
  });
  const loopNames = workflow.nodes.flatMap((node) =>
    node.type === 'LOOP' ? [node.config.itemVariable, node.config.indexVariable] : [],
  );
  const names = [...declarations.keys(), ...loopNames];

  const checkTarget = (path: string, target: string) => {
    if (!indexById.has(target)) report(path, `unknown node "${target}"`);
  };
  const checkTemplate = (path: string, template: string, extra: string[] = []) => {
    for (const expression of templateExpressions(template)) {
      const problem = checkExpression(expression, [...names, ...extra]);
      if (problem) report(path, `${problem} in \`${expression}\``);
    }
  };
  const checkWrite = (path: string, name: string, scope?: string) => {
    const declaration = declarations.get(name);
    if (!declaration) {
      report(path, `variable "${name}" is not declared; declare it under [[variables]] with a scope`);
    } else if (scope !== undefined && scope !== declaration.scope) {
      report(path, `variable "${name}" is declared with scope "${declaration.scope}", not "${scope}"`);
    }
  };

  workflow.nodes.forEach((node, index) => {
    const at = `nodes[${index}]`;
    const edgeCount = outgoing.get(node.id)?.length ?? 0;
    checkEdges(node, edgeCount, (message) => report(at, message));
    const checkChildTemplate = (path: string, template: string, childNames: string[]) => {
      for (const expression of templateExpressions(template)) {
        const problem = checkExpression(expression, childNames);
        if (problem) report(path, `${problem} in \`${expression}\``);
      }
    };
    checkNode(node, `${at}.config`, { checkTarget, checkTemplate, checkWrite, checkChildTemplate, lookup, report });
  });

  reportUnreachable(workflow, indexById, report);
  return issues;
}

interface NodeChecks {
  checkTarget(path: string, target: string): void;
  checkTemplate(path: string, template: string, extra?: string[]): void;
  checkWrite(path: string, name: string, scope?: string): void;
  /** Checks a template against another workflow's names only (a SUBGRAPH's outputs). */
  checkChildTemplate(path: string, template: string, names: string[]): void;
  lookup: SubworkflowLookup;
  report(path: string, message: string): void;
}

function checkEdges(node: WorkflowNode, edgeCount: number, report: (message: string) => void): void {
  if (node.type === 'END' && edgeCount > 0) report(`END node "${node.id}" cannot have outgoing edges`);
  else if (node.type === 'ROUTE' && edgeCount > 0) {
    report(`ROUTE node "${node.id}" branches through config.branches and config.default, not edges`);
  } else if (node.type !== 'END' && node.type !== 'ROUTE' && edgeCount !== 1) {
    report(`${node.type} node "${node.id}" needs exactly one outgoing edge, found ${edgeCount}`);
  }
}

function checkNode(node: WorkflowNode, at: string, checks: NodeChecks): void {
  switch (node.type) {
    case 'START':
      return;
    case 'END':
      if (node.config.output !== undefined) checks.checkTemplate(`${at}.output`, node.config.output);
      return;
    case 'LLM':
      if (node.config.prompt !== undefined) checks.checkTemplate(`${at}.prompt`, node.config.prompt);
      if (node.config.systemPrompt !== undefined) checks.checkTemplate(`${at}.systemPrompt`, node.config.systemPrompt);
      if (node.config.outputVariable !== undefined)
        checks.checkWrite(`${at}.outputVariable`, node.config.outputVariable);
      return;
    case 'USER_INTERACTION': {
      const config = node.config;
      checks.checkTemplate(`${at}.prompt`, config.prompt);
      if (config.operationType === 'UPDATE_VARIABLES') {
        config.variables.forEach((variable, index) => {
          checks.checkWrite(`${at}.variables[${index}].variableName`, variable.variableName, variable.scope);
          checks.checkTemplate(`${at}.variables[${index}].expression`, variable.expression, ['input']);
        });
      } else {
        checks.checkTemplate(`${at}.message.contentTemplate`, config.message.contentTemplate, ['input']);
      }
      return;
    }
    case 'ROUTE':
      node.config.branches.forEach((branch, index) => {
        checks.checkTarget(`${at}.branches[${index}].to`, branch.to);
        checks.checkTemplate(`${at}.branches[${index}].condition`, `{{ ${conditionExpression(branch.condition)} }}`);
      });
      checks.checkTarget(`${at}.default`, node.config.default);
      return;
    case 'VARIABLE':
      node.config.assignments.forEach((assignment, index) => {
        checks.checkWrite(`${at}.assignments[${index}].variableName`, assignment.variableName, assignment.scope);
        checks.checkTemplate(`${at}.assignments[${index}].expression`, assignment.expression);
      });
      return;
    case 'TOOL':
      for (const { path, text } of stringsIn(node.config.arguments))
        checks.checkTemplate(`${at}.arguments.${path}`, text);
      if (node.config.outputVariable !== undefined)
        checks.checkWrite(`${at}.outputVariable`, node.config.outputVariable);
      return;
    case 'LOOP':
      checks.checkTarget(`${at}.body`, node.config.body);
      checks.checkTemplate(`${at}.items`, `{{ ${node.config.items} }}`);
      return;
    case 'SUBGRAPH': {
      const child = checks.lookup(node.config.workflow);
      if (!child) {
        checks.report(`${at}.workflow`, `no workflow "${node.config.workflow}" (a file path or a registered id)`);
        return;
      }
      const childNames = new Set(child.variables.filter((v) => v.scope !== 'global').map((v) => v.name));
      for (const [name, template] of Object.entries(node.config.input)) {
        if (!childNames.has(name)) {
          checks.report(
            `${at}.input.${name}`,
            `workflow "${child.id}" declares no thread or subgraph variable "${name}"`,
          );
        }
        checks.checkTemplate(`${at}.input.${name}`, template);
      }
      const childReadable = [...child.variables.map((v) => v.name)];
      for (const [name, template] of Object.entries(node.config.output)) {
        checks.checkWrite(`${at}.output.${name}`, name);
        checks.checkChildTemplate(`${at}.output.${name}`, template, childReadable);
      }
      return;
    }
  }
}

function reportUnreachable(
  workflow: WorkflowDefinition,
  indexById: Map<string, number>,
  report: (path: string, message: string) => void,
): void {
  const start = workflow.nodes.find((node) => node.type === 'START');
  if (!start) return;
  const successors = new Map<string, string[]>();
  const add = (from: string, to: string) => successors.set(from, [...(successors.get(from) ?? []), to]);
  for (const edge of workflow.edges) add(edge.from, edge.to);
  for (const node of workflow.nodes) {
    if (node.type === 'ROUTE') {
      for (const branch of node.config.branches) add(node.id, branch.to);
      add(node.id, node.config.default);
    }
    if (node.type === 'LOOP') add(node.id, node.config.body);
  }
  const seen = new Set([start.id]);
  const queue = [start.id];
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    for (const next of successors.get(id) ?? []) {
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  for (const node of workflow.nodes) {
    if (!seen.has(node.id))
      report(`nodes[${indexById.get(node.id) ?? '?'}]`, `node "${node.id}" is unreachable from START`);
  }
}

/** Every tool a workflow names must be registered with createInterlock({ tools }). */
function checkTools(
  workflow: WorkflowDefinition,
  toolExists: (name: string) => boolean,
  report: (path: string, message: string) => void,
): void {
  const unknown = (name: string) => `no tool "${name}" is registered: pass it to createInterlock({ tools })`;
  workflow.config.toolApproval.autoApprovedTools.forEach((name, index) => {
    if (!toolExists(name)) report(`config.toolApproval.autoApprovedTools[${index}]`, unknown(name));
  });
  workflow.nodes.forEach((node, index) => {
    if (node.type === 'LLM') {
      node.config.tools.forEach((name, toolIndex) => {
        if (!toolExists(name)) report(`nodes[${index}].config.tools[${toolIndex}]`, unknown(name));
      });
    }
    // A tool named by a template is looked up when the node runs (an unknown one is NOT_FOUND then).
    if (node.type === 'TOOL' && !node.config.tool.includes('{{') && !toolExists(node.config.tool))
      report(`nodes[${index}].config.tool`, unknown(node.config.tool));
  });
}
