import type { VariableDeclaration, VariableScope, WorkflowDefinition } from '@interlock/sdk-types';
import { InterlockError } from '../errors/interlock-error.js';
import type { Frame, ThreadRecord } from '../persistence/checkpoint-store.js';
import type { GlobalChange } from '../persistence/unit-of-work.js';

/**
 * The variables a node sees, and the writes it makes (F3), as of the thread and the global
 * variables read when the node started. Writes are kept here and applied with the node's
 * completion (`writeTo`): the thread's scopes in its next value, global ones as
 * compare-and-set changes against the values read, so two threads that update one global
 * at once never lose an update (the loser reads again and recomputes, see
 * NodeExecutionCoordinator).
 *
 * Reads resolve innermost first: loop (innermost loop first) → subgraph (this frame) →
 * thread → global. Writes go to the variable's declared scope; a write to an undeclared
 * variable, or to a scope other than the declared one, is an error.
 */
export class VariableScopes {
  private readonly declarations: Map<string, VariableDeclaration>;
  /** Declared globals not stored yet read as their defaults (a first write then expects them absent). */
  private readonly globalDefaults: Record<string, unknown>;
  private readonly writes = new Map<string, { scope: VariableScope; value: unknown; blind: boolean }>();

  constructor(
    private readonly thread: ThreadRecord,
    private readonly frame: Frame,
    workflow: WorkflowDefinition,
    private globals: Readonly<Record<string, unknown>>,
  ) {
    this.declarations = new Map(workflow.variables.map((declaration) => [declaration.name, declaration]));
    this.globalDefaults = defaultsOf(workflow, 'global');
  }

  /** All visible variables, merged by the shadowing rule above, this node's writes included. */
  all(): Record<string, unknown> {
    const merged: Record<string, unknown> = {
      ...this.globalDefaults,
      ...this.globals,
      ...this.thread.variables,
      ...this.frame.variables,
    };
    for (const loop of this.frame.loops) Object.assign(merged, loop.variables);
    for (const [name, write] of this.writes) merged[name] = write.value;
    return merged;
  }

  get(name: string): unknown {
    return this.all()[name];
  }

  /**
   * Writes a declared variable; returns the scope written. `blind`: a global written
   * without regard to its value before (a model's answer), so no compare-and-set.
   */
  set(name: string, value: unknown, scope?: VariableScope, options: { blind?: boolean } = {}): VariableScope {
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
    if (target === 'loop' && !loop) {
      throw new InterlockError(
        'VARIABLE_UNDECLARED',
        `variable "${name}" has scope "loop" but is written outside a LOOP body`,
      );
    }
    this.writes.set(name, { scope: target, value, blind: options.blind === true });
    return target;
  }

  /** Whether this node wrote anything. */
  get written(): boolean {
    return this.writes.size > 0;
  }

  /** The writes so far, to go back to (see {@link refresh}). */
  mark(): ReadonlyMap<string, { scope: VariableScope; value: unknown; blind: boolean }> {
    return new Map(this.writes);
  }

  /**
   * The global variables as read again, after a compare-and-set failed: the writes go back
   * to `mark` (those made before the node's completion), and the completion computes its
   * own again from the new values.
   */
  refresh(
    globals: Readonly<Record<string, unknown>>,
    mark: ReadonlyMap<string, { scope: VariableScope; value: unknown; blind: boolean }>,
  ): void {
    this.globals = globals;
    this.writes.clear();
    for (const [name, write] of mark) this.writes.set(name, write);
  }

  /**
   * The thread with this node's writes applied to its current frame (whose loops are the
   * node's), and the changes to the workflow's global variables.
   */
  writeTo(thread: ThreadRecord, workflowId: string): { next: ThreadRecord; globals: GlobalChange[] } {
    if (this.writes.size === 0) return { next: thread, globals: [] };
    const threadVariables: Record<string, unknown> = {};
    const frameVariables: Record<string, unknown> = {};
    const loopVariables: Record<string, unknown> = {};
    const globals: GlobalChange[] = [];
    for (const [name, { scope, value, blind }] of this.writes) {
      if (scope === 'thread') threadVariables[name] = value;
      else if (scope === 'subgraph') frameVariables[name] = value;
      else if (scope === 'loop') loopVariables[name] = value;
      else if (blind) globals.push({ kind: 'set', scope: workflowId, name, value });
      else globals.push({ kind: 'compare-and-set', scope: workflowId, name, expected: this.globals[name], value });
    }
    const frames = [...thread.frames];
    const frame = frames.at(-1);
    if (frame && (Object.keys(frameVariables).length > 0 || Object.keys(loopVariables).length > 0)) {
      const loops = [...frame.loops];
      const loop = loops.at(-1);
      if (loop && Object.keys(loopVariables).length > 0)
        loops[loops.length - 1] = { ...loop, variables: { ...loop.variables, ...loopVariables } };
      frames[frames.length - 1] = { ...frame, variables: { ...frame.variables, ...frameVariables }, loops };
    }
    return {
      next: { ...thread, variables: { ...thread.variables, ...threadVariables }, frames },
      globals,
    };
  }
}

/** Initial values of the declared variables of one scope. */
export function defaultsOf(workflow: WorkflowDefinition, scope: VariableScope): Record<string, unknown> {
  return Object.fromEntries(
    workflow.variables
      .filter((declaration) => declaration.scope === scope)
      .map((declaration) => [declaration.name, copyOf(declaration.default ?? null)]),
  );
}

/** A copy of a JSON value to hand to a thread; a primitive is its own copy. */
function copyOf<T>(value: T): T {
  return typeof value === 'object' && value !== null ? structuredClone(value) : value;
}
