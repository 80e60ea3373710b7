import type { VariableDeclaration, VariableScope, WorkflowDefinition } from '@interlock/sdk-types';
import { InterlockError } from '../errors/interlock-error.js';
import type { Frame, ThreadRecord } from '../persistence/checkpoint-store.js';

/**
 * The variables a node sees, and where its writes go (F3).
 *
 * Reads resolve innermost first: loop (innermost loop first) → subgraph (this frame) →
 * thread → global. So a loop variable shadows a subgraph variable of the same name, and
 * so on. Writes go to the variable's declared scope; a write to an undeclared variable,
 * or to a scope other than the declared one, is an error.
 */
export class VariableScopes {
  private readonly declarations: Map<string, VariableDeclaration>;
  /** Global variables written by this node, to be saved to the store. */
  readonly globalWrites: Record<string, unknown> = {};

  constructor(
    private readonly thread: ThreadRecord,
    private readonly frame: Frame,
    workflow: WorkflowDefinition,
    private readonly globals: Record<string, unknown>,
  ) {
    this.declarations = new Map(workflow.variables.map((declaration) => [declaration.name, declaration]));
  }

  /** All visible variables, merged by the shadowing rule above. */
  all(): Record<string, unknown> {
    const merged: Record<string, unknown> = { ...this.globals, ...this.thread.variables, ...this.frame.variables };
    for (const loop of this.frame.loops) Object.assign(merged, loop.variables);
    return merged;
  }

  get(name: string): unknown {
    return this.all()[name];
  }

  /** Writes a declared variable; returns the scope written. */
  set(name: string, value: unknown, scope?: VariableScope): VariableScope {
    const declaration = this.declarations.get(name);
    const loop = this.frame.loops.at(-1);
    const isLoopVariable = loop !== undefined && name in loop.variables && !declaration;
    if (!declaration && !isLoopVariable) {
      throw new InterlockError(
        'VARIABLE_UNDECLARED',
        `variable "${name}" is not declared in this workflow: declare it under [[variables]]`,
      );
    }
    const target = declaration?.scope ?? 'loop';
    if (scope !== undefined && scope !== target) {
      throw new InterlockError(
        'VARIABLE_UNDECLARED',
        `variable "${name}" is declared with scope "${target}", not "${scope}"`,
      );
    }
    switch (target) {
      case 'global':
        this.globals[name] = value;
        this.globalWrites[name] = value;
        break;
      case 'thread':
        this.thread.variables[name] = value;
        break;
      case 'subgraph':
        this.frame.variables[name] = value;
        break;
      case 'loop':
        if (!loop) {
          throw new InterlockError(
            'VARIABLE_UNDECLARED',
            `variable "${name}" has scope "loop" but is written outside a LOOP body`,
          );
        }
        loop.variables[name] = value;
        break;
    }
    return target;
  }
}

/** Initial values of the declared variables of one scope. */
export function defaultsOf(workflow: WorkflowDefinition, scope: VariableScope): Record<string, unknown> {
  return Object.fromEntries(
    workflow.variables
      .filter((declaration) => declaration.scope === scope)
      .map((declaration) => [declaration.name, structuredClone(declaration.default ?? null)]),
  );
}
