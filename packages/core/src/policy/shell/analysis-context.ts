import type { Node } from 'web-tree-sitter';
import type { AnalysisFindings } from './analysis-findings.js';
import type { BashParser } from './bash-parser.js';
import type { CompiledPolicy } from './compiled-policy.js';

/**
 * The time one classification may still take: past `deadline` (in {@link cpuMilliseconds}),
 * it stops. CPU time, not wall time: what bounds an adversarial command is the work it
 * costs, and a busy machine that schedules the process less must not turn a plain command
 * into a question.
 */
export interface AnalysisBudget {
  readonly deadline: number;
}

/** This process's CPU time (user and system) in milliseconds: a classification runs synchronously on it. */
export function cpuMilliseconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** Thrown when a classification ran out of its time budget; the classifier then asks. */
export class BudgetExceeded extends Error {
  constructor(readonly budgetMs: number) {
    super(`the command took longer than ${budgetMs} ms to check`);
  }
}

/** Stops the analysis once its time is up (checked at every statement and nested script). */
export function checkBudget(context: AnalysisContext): void {
  if (cpuMilliseconds() > context.budget.deadline) throw new BudgetExceeded(context.policy.timeBudgetMs);
}

/** Where a command's standard input comes from, and its text when known. */
export interface StandardInput {
  readonly source: 'pipe' | 'heredoc';
  readonly text?: string | undefined;
  /** The input comes from the network (`curl … |`, `< /dev/tcp/…`, `<<< "$(curl …)"`): running it is banned. */
  readonly remote?: boolean | undefined;
}

/** What a statement does that matters to the statements around it. */
export interface StatementEffect {
  /** A network fetcher runs in it (its output may be remote content). */
  readonly fetches: boolean;
  /** Its standard output, when known before it runs (`echo …`, `cat` of a heredoc). */
  readonly output?: string | undefined;
}

/** An effect with nothing in it. */
export const NO_EFFECT: StatementEffect = { fetches: false };

/** Combines effects of statements that run one after another. */
export function combineEffects(effects: readonly StatementEffect[]): StatementEffect {
  return {
    fetches: effects.some((effect) => effect.fetches),
    output: effects.length === 1 ? effects[0]?.output : undefined,
  };
}

/** Working directories seen so far (`~` is home), for resolving relative paths. */
export interface PathState {
  readonly cwds: string[];
  readonly homeDirectory?: string | undefined;
  /** The workspace the command may write in (issue 37); default: the first of `cwds`. */
  readonly workspaceRoot?: string | undefined;
}

/** Everything the analysis of one command line carries around. */
export interface AnalysisContext {
  readonly policy: CompiledPolicy;
  readonly parser: BashParser;
  readonly findings: AnalysisFindings;
  readonly paths: PathState;
  /** How deep in the tree (nested scripts included) the analysis is. */
  readonly depth: number;
  /** True while trying out what a wrapper might run: only banned and high-risk findings are kept, no programs are listed. */
  readonly speculative: boolean;
  /** Visits statements found anywhere (passed in so the visitors need not import each other). */
  readonly visitor: StatementVisitor;
  readonly budget: AnalysisBudget;
}

/** Analyses statements: nodes of the tree, or scripts found inside the command. */
export interface StatementVisitor {
  /** Visits one statement node (a command, pipeline, list, subshell, …). */
  statement(node: Node, stdin: StandardInput | undefined, context: AnalysisContext): StatementEffect;
  /** Parses and visits a script found inside the command (`sh -c '…'`, `eval …`, a heredoc fed to a shell). */
  script(text: string, stdin: StandardInput | undefined, context: AnalysisContext): StatementEffect;
}

/** The same context one level deeper. */
export function deeper(context: AnalysisContext, levels = 1): AnalysisContext {
  return { ...context, depth: context.depth + levels };
}
