import type { Node } from 'web-tree-sitter';
import { evaluateWord } from './shell-word.js';

/** The statically known name a command runs, if any. */
function commandName(node: Node): string | undefined {
  const name = node.childrenForFieldName('name')[0]?.namedChildren[0];
  if (!name) return undefined;
  const word = evaluateWord(name);
  return word.exact ? word.text : undefined;
}

/** True when the command runs alongside others: a pipeline stage, or followed by `&`. */
function runsConcurrently(node: Node): boolean {
  const statement = node.parent?.type === 'redirected_statement' ? node.parent : node;
  return statement.parent?.type === 'pipeline' || statement.nextSibling?.type === '&';
}

/**
 * True for a fork bomb: a function whose body calls itself in a pipeline or in the
 * background (`:(){ :|:& };:`, `bomb(){ bomb|bomb& }`), whatever it is named.
 *
 * @param limit - how many nodes to look at before giving up (the depth cap bounds the rest).
 */
export function isForkBomb(definition: Node, limit = 10_000): boolean {
  const nameNode = definition.childrenForFieldName('name')[0];
  const body = definition.childrenForFieldName('body')[0];
  if (!nameNode || !body) return false;
  const name = evaluateWord(nameNode).text;
  const pending: Node[] = [body];
  for (let seen = 0; pending.length > 0 && seen < limit; seen += 1) {
    const node = pending.pop();
    if (!node) break;
    if (node.type === 'command' && commandName(node) === name && runsConcurrently(node)) return true;
    pending.push(...node.namedChildren);
  }
  return false;
}
