import type { Node } from 'web-tree-sitter';
import { NO_EFFECT, type AnalysisContext, type StandardInput, type StatementEffect } from './analysis-context.js';
import { checkAssignments } from './environment-assignments.js';
import { excerpt } from './excerpt.js';
import { analyzeInvocation } from './invocation-analyzer.js';
import { checkRedirect, REDIRECT_TYPES } from './redirects.js';
import { evaluateWord, type ShellWord } from './shell-word.js';
import { visitValue } from './value-visitor.js';

/** Evaluates a word and visits it for substitutions. */
function wordOf(node: Node, context: AnalysisContext): ShellWord {
  const fetchesRemote = visitValue(node, context);
  return { ...evaluateWord(node), fetchesRemote };
}

/** Visits an assignment (`NAME=value`, `a[i]=value`) and returns the variable's name. */
export function visitAssignment(node: Node, context: AnalysisContext): string {
  for (const child of node.namedChildren) visitValue(child, context);
  const name = node.childrenForFieldName('name')[0];
  return name?.type === 'subscript' ? (name.childrenForFieldName('name')[0]?.text ?? name.text) : (name?.text ?? '');
}

/** A simple command: assignments, program, arguments and redirections. */
export function visitCommand(node: Node, stdin: StandardInput | undefined, context: AnalysisContext): StatementEffect {
  const words: ShellWord[] = [];
  const assignments: string[] = [];
  let input = stdin;
  node.children.forEach((child, index) => {
    const field = node.fieldNameForChild(index);
    if (child.type === 'variable_assignment') assignments.push(visitAssignment(child, context));
    else if (field === 'name') words.unshift(wordOf(child.namedChildren[0] ?? child, context));
    else if (field === 'argument') words.push(wordOf(child, context));
    else if (REDIRECT_TYPES.has(child.type)) input = checkRedirect(child, context) ?? input;
    else if (child.type !== 'comment') {
      context.findings.add(
        'ask',
        'shell:unsupported-construct',
        `${excerpt(child.text)} in a command is not understood`,
      );
      visitValue(child, context);
    }
  });
  checkAssignments(assignments, context);
  return analyzeInvocation(words, input, context);
}

/** A standalone assignment (`x=1`): harmless unless it sets a variable like PATH. */
export function visitStandaloneAssignment(node: Node, context: AnalysisContext): StatementEffect {
  checkAssignments([visitAssignment(node, context)], context);
  return NO_EFFECT;
}

/**
 * `export`/`declare`/`local`/`readonly`/`typeset`: plain assignments are fine; flags
 * (`-i` evaluates arithmetic, `-n` makes a name reference) and listing all variables ask.
 */
export function visitDeclaration(node: Node, context: AnalysisContext): StatementEffect {
  const keyword = node.children[0]?.text ?? 'declare';
  const operands = node.namedChildren;
  if (operands.length === 0)
    context.findings.add('ask', 'shell:declaration', `${keyword} without arguments prints variables`);
  const names: string[] = [];
  for (const operand of operands) {
    if (operand.type === 'variable_assignment') {
      names.push(visitAssignment(operand, context));
      continue;
    }
    const word = wordOf(operand, context);
    if (!word.exact || word.text.startsWith('-') || word.text.startsWith('+')) {
      context.findings.add('ask', 'shell:declaration', `${keyword} ${excerpt(word.text)} is not a plain assignment`);
    }
  }
  checkAssignments(names, context);
  return NO_EFFECT;
}

/** `[[ … ]]`: comparisons can evaluate a variable's content as arithmetic (and so run code). */
export function visitTest(node: Node, context: AnalysisContext): StatementEffect {
  for (const child of node.namedChildren) visitValue(child, context);
  if (node.descendantsOfType(['simple_expansion', 'expansion']).length > 0) {
    context.findings.add('ask', 'shell:expansion', 'a test on expanded values can evaluate them as arithmetic');
  }
  return NO_EFFECT;
}
