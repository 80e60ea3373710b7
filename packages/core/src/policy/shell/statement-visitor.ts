import type { Node } from 'web-tree-sitter';
import {
  combineEffects,
  checkBudget,
  deeper,
  NO_EFFECT,
  type AnalysisContext,
  type StandardInput,
  type StatementEffect,
  type StatementVisitor,
} from './analysis-context.js';
import { visitCommand, visitDeclaration, visitStandaloneAssignment, visitTest } from './command-visitor.js';
import { checkAssignments } from './environment-assignments.js';
import { excerpt } from './excerpt.js';
import { isForkBomb } from './fork-bomb.js';
import { screenCharacters } from './input-screening.js';
import { checkRedirect, isOutputRedirect, REDIRECT_TYPES } from './redirects.js';
import { exceedsDepth, visitValue } from './value-visitor.js';

/** Node types that run something (everything else in a sequence is a value). */
const STATEMENT_TYPES = new Set([
  'program',
  'command',
  'redirected_statement',
  'pipeline',
  'list',
  'subshell',
  'compound_statement',
  'function_definition',
  'variable_assignment',
  'variable_assignments',
  'declaration_command',
  'unset_command',
  'test_command',
  'negated_command',
  'if_statement',
  'elif_clause',
  'else_clause',
  'while_statement',
  'for_statement',
  'c_style_for_statement',
  'case_statement',
  'case_item',
  'do_group',
  'comment',
  'ERROR',
  ...REDIRECT_TYPES,
]);

/** Node types whose children simply run in order (conditions and loops included). */
const SEQUENCE_TYPES = new Set([
  'program',
  'list',
  'subshell',
  'compound_statement',
  'do_group',
  'if_statement',
  'elif_clause',
  'else_clause',
  'while_statement',
  'for_statement',
  'case_statement',
  'case_item',
  'negated_command',
  'variable_assignments',
  'ERROR',
]);

/** Visits children in order: statements as statements, the rest (loop values, case patterns) as values. */
function visitSequence(node: Node, stdin: StandardInput | undefined, context: AnalysisContext): StatementEffect {
  const effects: StatementEffect[] = [];
  for (const child of node.children) {
    if (!child.isNamed) {
      if (child.type === '&') context.findings.add('ask', 'shell:background', 'a command runs in the background');
    } else if (STATEMENT_TYPES.has(child.type) || child.isError) {
      effects.push(visitStatement(child, stdin, context));
    } else {
      visitValue(child, context);
    }
  }
  return combineEffects(effects);
}

/**
 * Stages after the first: each reads the previous one's output, marked remote once a
 * network fetcher ran upstream (`curl … | tee f | sh` is as banned as `curl … | sh`).
 */
function continuePipeline(first: StatementEffect, stages: readonly Node[], context: AnalysisContext): StatementEffect {
  let fetched = first.fetches;
  let previous = first;
  for (const stage of stages) {
    previous = visitStatement(stage, { source: 'pipe', text: previous.output, remote: fetched }, context);
    fetched ||= previous.fetches;
  }
  return { fetches: fetched, output: previous.output };
}

function visitPipeline(node: Node, stdin: StandardInput | undefined, context: AnalysisContext): StatementEffect {
  const [first, ...rest] = node.namedChildren.filter((child) => child.type !== 'comment');
  if (!first) return NO_EFFECT;
  return continuePipeline(visitStatement(first, stdin, context), rest, context);
}

/**
 * A statement with redirections. tree-sitter-bash puts whatever follows a heredoc's
 * start line (`cat <<EOF | sh`, `cat <<EOF && rm x`) inside the heredoc node: it is
 * visited here as the pipeline or list it really is.
 */
function visitRedirected(node: Node, stdin: StandardInput | undefined, context: AnalysisContext): StatementEffect {
  let input = stdin;
  const pipedStages: Node[] = [];
  const following: Node[] = [];
  const outputs: Node[] = [];
  for (const redirect of node.childrenForFieldName('redirect')) {
    if (isOutputRedirect(redirect)) {
      outputs.push(redirect);
      continue;
    }
    input = checkRedirect(redirect, context) ?? input;
    if (redirect.type !== 'heredoc_redirect') continue;
    for (const child of redirect.namedChildren) {
      if (child.type === 'pipeline' && child.children[0]?.type.startsWith('|'))
        pipedStages.push(...child.namedChildren);
      else if (STATEMENT_TYPES.has(child.type) && !REDIRECT_TYPES.has(child.type)) following.push(child);
      else if (REDIRECT_TYPES.has(child.type)) input = checkRedirect(child, context) ?? input;
    }
  }
  const body = node.childrenForFieldName('body')[0];
  const bodyEffect = body ? visitStatement(body, input, context) : NO_EFFECT;
  for (const redirect of outputs) checkRedirect(redirect, context);
  const effect = continuePipeline(bodyEffect, pipedStages, context);
  return combineEffects([effect, ...following.map((statement) => visitStatement(statement, undefined, context))]);
}

function visitFunction(node: Node, context: AnalysisContext): StatementEffect {
  const name = node.childrenForFieldName('name')[0]?.text ?? '';
  context.findings.add('ask', 'shell:function-definition', `defines the shell function ${excerpt(name)}`);
  if (isForkBomb(node))
    context.findings.add(
      'banned',
      'shell:banned:fork-bomb',
      `the function ${excerpt(name)} calls itself in a pipeline or in the background (fork bomb)`,
    );
  for (const redirect of node.childrenForFieldName('redirect')) checkRedirect(redirect, context);
  const body = node.childrenForFieldName('body')[0];
  return body ? visitStatement(body, undefined, context) : NO_EFFECT;
}

function visitArithmeticStatement(
  node: Node,
  stdin: StandardInput | undefined,
  context: AnalysisContext,
): StatementEffect {
  context.findings.add('ask', 'shell:arithmetic', 'arithmetic evaluation can run code through array subscripts');
  return visitSequence(node, stdin, context);
}

/** Visits one statement node; see {@link StatementVisitor.statement}. */
function visitStatement(node: Node, stdin: StandardInput | undefined, context: AnalysisContext): StatementEffect {
  checkBudget(context);
  if (exceedsDepth(context)) return NO_EFFECT;
  const inner = deeper(context);
  if (node.isMissing) return NO_EFFECT;
  switch (node.type) {
    case 'command':
      return visitCommand(node, stdin, inner);
    case 'redirected_statement':
      return visitRedirected(node, stdin, inner);
    case 'pipeline':
      return visitPipeline(node, stdin, inner);
    case 'function_definition':
      return visitFunction(node, inner);
    case 'variable_assignment':
      return visitStandaloneAssignment(node, inner);
    case 'declaration_command':
      return visitDeclaration(node, inner);
    case 'test_command':
      return visitTest(node, inner);
    case 'unset_command':
      for (const child of node.namedChildren) visitValue(child, inner);
      return NO_EFFECT;
    case 'comment':
      return NO_EFFECT;
    case 'for_statement':
      // `for PATH in /tmp; do ls; done` assigns like `PATH=/tmp`.
      checkAssignments(
        node.childrenForFieldName('variable').map((variable) => variable.text),
        inner,
      );
      return visitSequence(node, stdin, inner);
    case 'c_style_for_statement':
      return visitArithmeticStatement(node, stdin, inner);
    case 'compound_statement':
      return node.children[0]?.type === '(('
        ? visitArithmeticStatement(node, stdin, inner)
        : visitSequence(node, stdin, inner);
    default:
      if (REDIRECT_TYPES.has(node.type)) {
        checkRedirect(node, inner);
        return NO_EFFECT;
      }
      if (!SEQUENCE_TYPES.has(node.type)) {
        context.findings.add('ask', 'shell:unsupported-construct', `${node.type} is not understood`);
      }
      return visitSequence(node, stdin, inner);
  }
}

/** Parses and visits a script found inside the command; see {@link StatementVisitor.script}. */
function visitScript(text: string, stdin: StandardInput | undefined, context: AnalysisContext): StatementEffect {
  checkBudget(context);
  if (text.length > context.policy.maxLength) {
    // Too long to check in bounded time: refused, never asked (a person could approve a
    // banned command hidden before a long comment).
    context.findings.add(
      'banned',
      'shell:too-long',
      `the command is longer than ${context.policy.maxLength} characters, too long to check: write long content to a file with the file tool and run something short`,
    );
    return NO_EFFECT;
  }
  screenCharacters(text, context.findings, 'the command');
  const tree = context.parser.parse(text);
  try {
    if (tree.rootNode.hasError) context.findings.add('ask', 'shell:unparsed', 'the command does not parse as bash');
    return visitStatement(tree.rootNode, stdin, context);
  } finally {
    tree.delete();
  }
}

/** The tree visitor the analysis context carries. */
export const statementVisitor: StatementVisitor = { statement: visitStatement, script: visitScript };
