import { AnalysisFindings } from './analysis-findings.js';
import { expandBraces } from './brace-expansion.js';
import {
  deeper,
  NO_EFFECT,
  type AnalysisContext,
  type StandardInput,
  type StatementEffect,
} from './analysis-context.js';
import { classifyPath } from './critical-paths.js';
import { checkAssignments } from './environment-assignments.js';
import { excerpt } from './excerpt.js';
import { analyzeFindActions } from './find-actions.js';
import { analyzeGitPrograms } from './git-programs.js';
import { HIDDEN_EFFECT_RULE, hiddenEffectOf } from './hidden-effects.js';
import { analyzeOptionPrograms } from './option-programs.js';
import { screenCharacters } from './input-screening.js';
import { FETCHERS, interpreterReadsStdin, isInterpreter, parseShellArguments, SHELLS } from './interpreters.js';
import { applyRules, programNameOf, safeListProblem, type ProgramName } from './program-checks.js';
import { checkWrites } from './protected-writes.js';
import { literalWord, type ShellWord } from './shell-word.js';
import { staticOutput } from './static-output.js';
import { exceedsDepth } from './value-visitor.js';
import { WRAPPERS, type WrapperSpec } from './wrapper-specs.js';
import { unwrapCommand } from './wrapper-unwrap.js';

/** How many leading words of an unreadable wrapper command line are tried as the command. */
const SPECULATION_LIMIT = 32;

function banDownloadExec(name: string, context: AnalysisContext): void {
  context.findings.add('banned', 'shell:banned:download-exec', `${name} runs code fetched from the network`);
}

/** Classifies a script given as a word (`sh -c '…'`, `su -c '…'`): parsed when known, asked about when not. */
function analyzeScriptWord(
  owner: string,
  word: ShellWord,
  stdin: StandardInput | undefined,
  context: AnalysisContext,
): StatementEffect {
  if (!word.exact) {
    context.findings.add('ask', 'shell:expansion', `the script given to ${owner} is only known when it runs`);
    return NO_EFFECT;
  }
  return context.visitor.script(word.text, stdin, context);
}

/** A program that reads the code it runs from standard input. */
function analyzeStdinProgram(
  name: string,
  stdin: StandardInput | undefined,
  context: AnalysisContext,
): StatementEffect {
  if (stdin?.remote) banDownloadExec(name, context);
  if (!stdin) {
    context.findings.add('ask', 'shell:interpreter', `${name} without a script runs what it reads from standard input`);
  } else if (stdin.source === 'heredoc') {
    context.findings.add('ask', 'shell:heredoc-to-interpreter', `a heredoc or here-string is run by ${name}`);
  } else {
    context.findings.add('ask', 'shell:pipe-to-interpreter', `the output of another command is run by ${name}`);
  }
  if (stdin?.text !== undefined && SHELLS.has(name)) context.visitor.script(stdin.text, undefined, context);
  return NO_EFFECT;
}

function analyzeShell(
  name: string,
  args: readonly ShellWord[],
  stdin: StandardInput | undefined,
  context: AnalysisContext,
): StatementEffect {
  if (args.some((arg) => arg.fetchesRemote)) banDownloadExec(name, context);
  const parsed = parseShellArguments(args.map((arg) => arg.text));
  if (parsed.unusualOption) {
    context.findings.add(
      'ask',
      'shell:interpreter',
      `${name} ${parsed.unusualOption} may read startup files or run interactively`,
    );
  }
  const script = parsed.scriptIndex === undefined ? undefined : args[parsed.scriptIndex];
  if (script) return analyzeScriptWord(name, script, stdin, context);
  if (parsed.readsStdin) return analyzeStdinProgram(name, stdin, context);
  context.findings.add(
    'ask',
    'shell:interpreter',
    `${name} runs the script ${excerpt(parsed.scriptFile ?? '')}, which is not checked`,
  );
  return NO_EFFECT;
}

function analyzeInterpreter(
  name: string,
  args: readonly ShellWord[],
  stdin: StandardInput | undefined,
  context: AnalysisContext,
): StatementEffect {
  if (args.some((arg) => arg.fetchesRemote)) banDownloadExec(name, context);
  if (
    interpreterReadsStdin(
      name,
      args.map((arg) => arg.text),
    )
  )
    return analyzeStdinProgram(name, stdin, context);
  context.findings.add('ask', 'shell:interpreter', `${name} runs code that is not checked`);
  return NO_EFFECT;
}

function analyzeEval(args: readonly ShellWord[], context: AnalysisContext): StatementEffect {
  context.findings.add('ask', 'shell:eval', 'eval runs its arguments as a command');
  if (args.some((arg) => arg.fetchesRemote)) banDownloadExec('eval', context);
  const script = args.map((arg) => arg.text).join(' ');
  return analyzeScriptWord(
    'eval',
    args.every((arg) => arg.exact) ? literalWord(script) : { ...literalWord(script), exact: false },
    undefined,
    context,
  );
}

const STDIN_PATHS = new Set(['/dev/stdin', '/dev/fd/0', '/proc/self/fd/0']);

/** `trap 'command' SIGNAL…` runs its first argument later, as a command. */
function analyzeTrap(args: readonly ShellWord[], context: AnalysisContext): StatementEffect {
  context.findings.add('ask', 'shell:eval', 'trap runs its first argument as a command later');
  const action = args.find((arg) => !arg.text.startsWith('-'));
  return action ? analyzeScriptWord('trap', action, undefined, context) : NO_EFFECT;
}

function analyzeSource(
  name: string,
  args: readonly ShellWord[],
  stdin: StandardInput | undefined,
  context: AnalysisContext,
): StatementEffect {
  context.findings.add('ask', 'shell:source', `${name} runs the commands in a file, which are not checked`);
  const readsRemoteStdin = stdin?.remote === true && args.some((arg) => STDIN_PATHS.has(arg.text));
  if (readsRemoteStdin || args.some((arg) => arg.fetchesRemote)) banDownloadExec(name, context);
  return NO_EFFECT;
}

/** Stands for words `xargs` reads from the network: running them is running remote code. */
const REMOTE_WORD: ShellWord = {
  ...literalWord('<input from the network>'),
  exact: false,
  plainExpansionsOnly: false,
  fetchesRemote: true,
};

/** Stands for words `xargs` reads from an input only known when it runs. */
const UNKNOWN_INPUT_WORD: ShellWord = {
  ...literalWord('<words read from standard input>'),
  exact: false,
  plainExpansionsOnly: false,
};

/** `xargs` appends the words it reads (or puts them in place of `-I` placeholders). */
function withStdinArguments(
  command: ShellWord[],
  stdin: StandardInput | undefined,
  replaceToken: string | undefined,
): ShellWord[] {
  if (stdin?.remote) return [...command, REMOTE_WORD];
  if (stdin?.text === undefined) {
    // What it reads is only known when it runs: placeholders and appended words are unknown.
    if (replaceToken === undefined) return [...command, UNKNOWN_INPUT_WORD];
    return command.map((word) =>
      word.text.includes(replaceToken) ? { ...word, exact: false, plainExpansionsOnly: false } : word,
    );
  }
  if (replaceToken !== undefined) {
    const line = stdin.text.split('\n')[0] ?? '';
    return command.map((word) => (word.exact ? literalWord(word.text.replaceAll(replaceToken, line)) : word));
  }
  return [...command, ...stdin.text.split(/\s+/).filter(Boolean).map(literalWord)];
}

/** Tries each word of an unreadable command line as the start of the command, keeping only banned and high-risk findings. */
function speculate(words: readonly ShellWord[], context: AnalysisContext): void {
  if (context.speculative) return;
  const trial: AnalysisContext = { ...context, findings: new AnalysisFindings(), speculative: true };
  const expanded = words.flatMap((word) => (word.braceExpansion ? expandBraces(word.text).map(literalWord) : [word]));
  expanded.slice(0, SPECULATION_LIMIT).forEach((word, index) => {
    if (word.exact && !word.text.startsWith('-')) analyzeInvocation(expanded.slice(index), undefined, trial);
  });
  context.findings.merge(trial.findings, (finding) => finding.verdict === 'banned' || finding.verdict === 'high-risk');
}

function analyzeWrapper(
  name: string,
  spec: WrapperSpec,
  args: readonly ShellWord[],
  stdin: StandardInput | undefined,
  context: AnalysisContext,
): StatementEffect {
  const unwrapped = unwrapCommand(spec, args);
  // A wrapper on the safe list runs its command as if alone (that command is still checked).
  if (!spec.transparent && !context.policy.safePrograms.has(name))
    context.findings.add('ask', 'shell:wrapper', `${name} runs another command`);
  if (unwrapped.unsafeOption)
    context.findings.add(
      'ask',
      HIDDEN_EFFECT_RULE,
      `${name} ${unwrapped.unsafeOption} writes a file the rules do not check`,
    );
  checkAssignments(unwrapped.assignments, context);
  for (const script of unwrapped.scripts) analyzeScriptWord(name, script, undefined, context);
  if (unwrapped.problem) {
    context.findings.add('ask', 'shell:wrapper', `${name}: ${unwrapped.problem}`);
    speculate(unwrapped.rest, context);
    return NO_EFFECT;
  }
  if (unwrapped.lookupOnly) return NO_EFFECT;
  if (!unwrapped.command) {
    if (unwrapped.scripts.length === 0) context.findings.add('ask', 'shell:wrapper', `${name} without a command`);
    return NO_EFFECT;
  }
  if (!spec.stdinArguments) return analyzeInvocation(unwrapped.command, stdin, context);
  return analyzeInvocation(withStdinArguments(unwrapped.command, stdin, unwrapped.replaceToken), undefined, context);
}

/** A program only known when it runs (`$(echo rm) -rf /`, `$CMD`, `/???/rm`). */
function analyzeDynamicProgram(word: ShellWord, args: readonly ShellWord[], context: AnalysisContext): StatementEffect {
  context.findings.add('ask', 'shell:dynamic-program', `the program ${excerpt(word.text)} is only known when it runs`);
  if (word.fetchesRemote) banDownloadExec('a command substitution', context);
  if (word.braceExpansion) speculate([word, ...args], context);
  if (args.some((arg) => classifyPath(arg.text, context.paths) !== 'ordinary')) {
    context.findings.add(
      'high-risk',
      'shell:high-risk:dynamic-program-destructive',
      'a program only known when it runs is given /, a home, a system directory or a device',
    );
  }
  return NO_EFFECT;
}

/** Follows `cd` so that later relative paths (`cd / && rm -rf *`) are resolved. */
function trackDirectory(name: string, args: readonly ShellWord[], context: AnalysisContext): void {
  if ((name !== 'cd' && name !== 'pushd') || context.speculative) return;
  const target = args.find((arg) => !arg.text.startsWith('-'));
  if (target && !target.exact) return;
  const path = target?.text ?? '~';
  const absolute = path.startsWith('/') || path.startsWith('~') || path.startsWith('$HOME');
  const candidates = absolute ? [path] : context.paths.cwds.map((cwd) => `${cwd}/${path}`);
  for (const candidate of candidates) if (!context.paths.cwds.includes(candidate)) context.paths.cwds.push(candidate);
}

function dispatch(
  program: ProgramName,
  args: readonly ShellWord[],
  stdin: StandardInput | undefined,
  context: AnalysisContext,
): StatementEffect {
  const { name } = program;
  // Programs that run other code are looked into whatever the safe list says: a safe-list
  // entry means "its ordinary use is safe", never "stop looking" (issue 13).
  const wrapper = WRAPPERS.get(name);
  if (wrapper) return analyzeWrapper(name, wrapper, args, stdin, context);
  if (name === 'eval') return analyzeEval(args, context);
  if (name === 'trap') return analyzeTrap(args, context);
  if (name === 'source' || name === '.') return analyzeSource(name, args, stdin, context);
  // What the rules cannot read asks in every mode (issue 24); a program the operator listed as safe is trusted with it.
  const listed = context.policy.safePrograms.get(name);
  const hidden =
    listed !== undefined && listed.replaceable !== true && program.location !== 'other'
      ? undefined
      : hiddenEffectOf(
          name,
          program.location,
          args.map((arg) => arg.text),
        );
  if (hidden !== undefined) context.findings.add('ask', HIDDEN_EFFECT_RULE, hidden);
  const problem = safeListProblem(program, args, context);
  // A shell or an interpreter is safe only by a safe-list rule with a check that passes
  // (`node --version`): a bare entry for one is refused at load.
  const checked = problem === undefined && context.policy.safePrograms.get(name)?.check !== undefined;
  if (SHELLS.has(name) && !checked) return analyzeShell(name, args, stdin, context);
  if (isInterpreter(name) && !checked) return analyzeInterpreter(name, args, stdin, context);
  if (problem !== undefined) context.findings.add('ask', problem.rule, problem.reason);
  if (name === 'find') analyzeFindActions(args, context, analyzeInvocation);
  if (name === 'git') analyzeGitPrograms(args, context, analyzeInvocation);
  analyzeOptionPrograms(name, args, context);
  return { fetches: FETCHERS.has(name) || stdin?.remote === true, output: staticOutput(name, args, stdin) };
}

/**
 * Classifies one program run (`words` = program and arguments): banned and high-risk
 * rules, wrappers and shells classified through, interpreters, and the safe list.
 */
export function analyzeInvocation(
  words: readonly ShellWord[],
  stdin: StandardInput | undefined,
  context: AnalysisContext,
): StatementEffect {
  if (exceedsDepth(context)) return NO_EFFECT;
  const [programWord, ...args] = words;
  if (!programWord) return NO_EFFECT;
  if (!programWord.exact || programWord.glob || programWord.text === '')
    return analyzeDynamicProgram(programWord, args, context);
  const program = programNameOf(programWord.text);
  if (!context.speculative) context.findings.addProgram(program.name);
  for (const arg of args) screenCharacters(arg.text, context.findings, `an argument of ${program.name}`);
  applyRules(program.name, args, context);
  checkWrites(program.name, args, context);
  trackDirectory(program.name, args, context);
  return dispatch(program, args, stdin, deeper(context));
}
