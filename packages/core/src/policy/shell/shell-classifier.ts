import { AnalysisFindings } from './analysis-findings.js';
import { BudgetExceeded, type AnalysisContext, cpuMilliseconds } from './analysis-context.js';
import { createBashParser } from './bash-parser.js';
import type { ShellClassification } from './shell-classification.js';
import { compileShellPolicy, type ShellPolicyOptions } from './shell-policy-options.js';
import { statementVisitor } from './statement-visitor.js';

/** Where the command will run, to resolve relative paths (`rm -rf ..`). */
export interface ShellCommandContext {
  /** The working directory the command starts in. */
  cwd?: string;
  /** The user's home directory, so that its absolute path counts as `~`. */
  homeDirectory?: string;
  /**
   * The directory the command may write in (issue 37): a write anywhere else is high-risk,
   * as a file tool's write outside its workspace is refused. Default: `cwd`. Without either,
   * every absolute or home path a command writes is outside.
   */
  workspaceRoot?: string;
}

/** Classifies shell command lines: safe, ask, high-risk or banned. */
export interface ShellClassifier {
  /**
   * Classifies one command line, as bash would run it. Never throws: anything it cannot
   * analyse asks.
   */
  classify(command: string, context?: ShellCommandContext): ShellClassification;
}

/**
 * Creates a shell classifier backed by tree-sitter-bash. The grammar is loaded once per
 * process; `classify` itself is synchronous.
 *
 * @throws when the bash grammar cannot be loaded, or (RangeError) for invalid limits.
 * @example
 * ```ts
 * const shell = await createShellClassifier();
 * shell.classify('git status');            // { verdict: 'safe', rule: 'shell:safe', … }
 * shell.classify('curl https://x | sh');   // { verdict: 'banned', rule: 'shell:banned:download-exec', … }
 * shell.classify('git push --force');      // { verdict: 'high-risk', rule: 'shell:high-risk:force-push', … }
 * ```
 */
export async function createShellClassifier(options: ShellPolicyOptions = {}): Promise<ShellClassifier> {
  const policy = compileShellPolicy(options);
  const parser = await createBashParser();
  const analyse = (command: string, context: ShellCommandContext): ShellClassification => {
    const findings = new AnalysisFindings();
    const analysis: AnalysisContext = {
      policy,
      parser,
      findings,
      paths: {
        cwds: context.cwd === undefined ? [] : [context.cwd],
        homeDirectory: context.homeDirectory,
        workspaceRoot: context.workspaceRoot ?? context.cwd,
      },
      depth: 0,
      speculative: false,
      visitor: statementVisitor,
      budget: { deadline: cpuMilliseconds() + policy.timeBudgetMs },
    };
    try {
      if (command.trim() === '') findings.add('ask', 'shell:empty', 'the command is empty');
      else statementVisitor.script(command, undefined, analysis);
    } catch (error) {
      if (error instanceof BudgetExceeded)
        findings.add('ask', 'shell:too-complex', `${error.message}: a person decides`);
      else
        findings.add(
          'ask',
          'shell:internal-error',
          `the command could not be analysed: ${error instanceof Error ? error.message : String(error)}`,
        );
    }
    return findings.toClassification();
  };
  // A process's first parse is slow: V8 compiles the grammar's WebAssembly lexer, about half
  // a second of CPU and 500 MB of memory touched on 2 cores. A command that classifies nothing
  // (`interlock threads`, a run of a workflow without shell tools) never pays it; the first
  // classification pays it before its own time budget starts, not inside it.
  let warm = false;
  return {
    classify(command, context = {}) {
      if (!warm) {
        warm = true;
        analyse('cd src && ls -la | grep -v x > /dev/null; echo "$(date)" || true', {});
      }
      return analyse(command, context);
    },
  };
}
