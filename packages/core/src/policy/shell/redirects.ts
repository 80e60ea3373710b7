import type { Node } from 'web-tree-sitter';
import type { AnalysisContext, StandardInput } from './analysis-context.js';
import { isBlockDevice } from './critical-paths.js';
import { excerpt } from './excerpt.js';
import { reportWrite } from './protected-writes.js';
import { evaluateWord } from './shell-word.js';
import { visitValue } from './value-visitor.js';

/** Redirection targets that neither read nor write a real file. */
const HARMLESS_TARGETS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty']);

const INPUT_OPERATORS = new Set(['<', '<&']);

/** The node types that are redirections. */
export const REDIRECT_TYPES: ReadonlySet<string> = new Set([
  'file_redirect',
  'heredoc_redirect',
  'herestring_redirect',
]);

/** Duplicating or closing a descriptor (`2>&1`, `>&-`) touches no file. */
function isDescriptorCopy(operator: string, target: string | undefined): boolean {
  if (operator.endsWith('-')) return true;
  if (operator !== '>&' && operator !== '<&') return false;
  return target !== undefined && (target === '-' || /^[0-9]+$/.test(target));
}

/** Bash opens a network connection for these paths. */
function isNetworkPath(path: string): boolean {
  return path.startsWith('/dev/tcp/') || path.startsWith('/dev/udp/');
}

/**
 * True for a redirection that writes a file (`>`, `>>`, `&>`, `2>`, …): checked after the
 * statement it belongs to is visited, so a `cd` before it (`cd /tmp && echo x > log`, which
 * the grammar may hang on the whole list) counts.
 */
export function isOutputRedirect(node: Node): boolean {
  if (node.type !== 'file_redirect') return false;
  const operator = node.children.find((child) => !child.isNamed)?.type ?? '';
  return !INPUT_OPERATORS.has(operator);
}

/** Checks `<`, `>`, `>>`, `&>`, `2>`, …; returns the command's input when the redirection reads from the network. */
function checkFileRedirect(node: Node, context: AnalysisContext): StandardInput | undefined {
  const operator = node.children.find((child) => !child.isNamed)?.type ?? '';
  const destination =
    node.childrenForFieldName('destination')[0] ?? node.namedChildren.find((child) => child.type !== 'file_descriptor');
  const fetches = destination ? visitValue(destination, context) : false;
  const word = destination ? evaluateWord(destination) : undefined;
  const input = INPUT_OPERATORS.has(operator);
  if (isDescriptorCopy(operator, word?.exact ? word.text : undefined)) return undefined;
  if (!word?.exact) {
    // `$HOME/.profile`: what is known of the name is enough to see a protected file, or one
    // outside the workspace; a name not known at all asks in every mode (issue 37).
    if (word && !input) reportWrite(word, 'the redirection writes', context);
    context.findings.add(
      'ask',
      'shell:redirect',
      `the redirection ${excerpt(node.text)} targets a file only known when it runs`,
    );
    return input && fetches ? { source: 'pipe', remote: true } : undefined;
  }
  if (HARMLESS_TARGETS.has(word.text)) return undefined;
  if (isNetworkPath(word.text)) {
    context.findings.add(
      'high-risk',
      'shell:high-risk:network-redirect',
      `the redirection opens the network connection ${excerpt(word.text)}`,
    );
    return input ? { source: 'pipe', remote: true } : undefined;
  }
  if (!input && isBlockDevice(word.text)) {
    context.findings.add(
      'banned',
      'shell:banned:write-device',
      `the redirection writes onto the block device ${word.text}`,
    );
    return undefined;
  }
  if (!input) reportWrite(word, 'the redirection writes', context);
  context.findings.add(
    'ask',
    'shell:redirect',
    `the redirection ${input ? 'reads' : 'writes'} the file ${excerpt(word.text)}`,
  );
  return undefined;
}

/**
 * Checks one redirection: writing or reading a file asks (except `/dev/null` and
 * descriptor copies like `2>&1`), writing a block device is banned, `/dev/tcp/…` is
 * high-risk. Heredocs, here-strings and network reads are returned as the command's input.
 */
export function checkRedirect(node: Node, context: AnalysisContext): StandardInput | undefined {
  switch (node.type) {
    case 'file_redirect':
      return checkFileRedirect(node, context);
    case 'heredoc_redirect': {
      const body = node.namedChildren.find((child) => child.type === 'heredoc_body');
      const remote = body ? visitValue(body, context) : false;
      return { source: 'heredoc', text: body?.text ?? '', remote };
    }
    case 'herestring_redirect': {
      const value = node.namedChildren.find((child) => child.type !== 'file_descriptor');
      if (!value) return { source: 'heredoc' };
      const remote = visitValue(value, context);
      const word = evaluateWord(value);
      return { source: 'heredoc', text: word.exact ? `${word.text}\n` : undefined, remote };
    }
    default:
      return undefined;
  }
}
