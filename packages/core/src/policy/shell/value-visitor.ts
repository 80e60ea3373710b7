import type { Node } from 'web-tree-sitter';
import { deeper, type AnalysisContext } from './analysis-context.js';
import { excerpt } from './excerpt.js';
import { isPlainExpansion } from './shell-word.js';

/** Reports that the tree is nested deeper than the cap allows; returns true when it is. */
export function exceedsDepth(context: AnalysisContext): boolean {
  if (context.depth <= context.policy.maxDepth) return false;
  context.findings.add('ask', 'shell:too-deep', `the command is nested deeper than ${context.policy.maxDepth} levels`);
  return true;
}

/** Visits the statements inside a substitution; returns true when one of them fetches from the network. */
function visitStatementsIn(node: Node, context: AnalysisContext): boolean {
  let fetches = false;
  for (const child of node.namedChildren) {
    if (context.visitor.statement(child, undefined, context).fetches) fetches = true;
  }
  return fetches;
}

function visitChildren(node: Node, context: AnalysisContext): boolean {
  let fetches = false;
  for (const child of node.namedChildren) if (visitValue(child, context)) fetches = true;
  return fetches;
}

/**
 * Visits a value (a word, string, expansion, …) for what runs while it is expanded:
 * command and process substitutions (whose commands are classified too), arithmetic, and
 * parameter expansions beyond a plain `$NAME`. Returns true when a substitution inside
 * runs a network fetcher.
 */
export function visitValue(node: Node, context: AnalysisContext): boolean {
  if (exceedsDepth(context)) return false;
  const inner = deeper(context);
  switch (node.type) {
    case 'command_substitution':
      context.findings.add(
        'ask',
        'shell:command-substitution',
        'a command substitution runs a command to build the command line',
      );
      return visitStatementsIn(node, inner);
    case 'process_substitution':
      context.findings.add('ask', 'shell:process-substitution', 'a process substitution <(…) >(…) runs a command');
      return visitStatementsIn(node, inner);
    case 'arithmetic_expansion':
      context.findings.add('ask', 'shell:arithmetic', 'arithmetic expansion can run code through array subscripts');
      return visitChildren(node, inner);
    case 'expansion': {
      // Children first, so that a substitution inside (`${x:-$(id)}`) is what the rule names.
      const fetches = visitChildren(node, inner);
      if (!isPlainExpansion(node)) {
        context.findings.add(
          'ask',
          'shell:expansion',
          `the parameter expansion ${excerpt(node.text)} can run code or is indirect`,
        );
      }
      return fetches;
    }
    default:
      return visitChildren(node, inner);
  }
}
