import { RE2JS } from 're2js';

/**
 * CEL's `matches()` in linear time (issue 13). cel-js runs `matches` with JavaScript's
 * backtracking RegExp, where a nested quantifier (`(a+)+$`) on 31 characters of
 * model-written text never returns, and the process stops with it. Every expression is
 * rewritten, before it is compiled, to call `linear_matches(text, pattern)` instead: RE2
 * semantics (CEL's own), run by re2js, whose time is linear in the text whatever the pattern.
 */
export const LINEAR_MATCHES = 'linear_matches';

const compiled = new Map<string, RE2JS>();
const MAX_CACHED = 256;

/** Whether `pattern` (RE2 syntax) matches anywhere in `text`. Throws for a pattern RE2 cannot compile. */
export function linearMatches(text: string, pattern: string): boolean {
  let regex = compiled.get(pattern);
  if (regex === undefined) {
    regex = RE2JS.compile(pattern);
    if (compiled.size >= MAX_CACHED) compiled.delete(compiled.keys().next().value as string);
    compiled.set(pattern, regex);
  }
  return regex.matcher(text).find();
}

interface AstNode {
  op: string;
  args: unknown;
  start: number;
  end: number;
}

type Parse = (expression: string) => { ast: AstNode };

/**
 * `expression` with every `x.matches(p)` and `matches(x, p)` calling {@link LINEAR_MATCHES}.
 * @throws Error when a call cannot be rewritten (the expression is refused: fail closed).
 */
export function withLinearMatches(expression: string, parse: Parse): string {
  let source = expression;
  // Each pass rewrites one call and parses again (positions move); as many passes as calls.
  for (let pass = 0; pass < 1_000; pass += 1) {
    const call = findMatchesCall(parse(source).ast);
    if (call === undefined) return source;
    source = rewrite(source, call);
  }
  throw new Error('too many matches() calls');
}

function findMatchesCall(node: unknown): AstNode | undefined {
  if (Array.isArray(node)) {
    for (const item of node) {
      const found = findMatchesCall(item);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof node !== 'object' || node === null || !('op' in node)) return undefined;
  const ast = node as AstNode;
  if ((ast.op === 'rcall' || ast.op === 'call') && Array.isArray(ast.args) && ast.args[0] === 'matches') return ast;
  return findMatchesCall(ast.args);
}

function rewrite(source: string, call: AstNode): string {
  const args = call.args as [string, ...unknown[]];
  if (call.op === 'call') {
    // matches(x, p): the name is where the call starts.
    if (source.slice(call.start, call.start + 'matches'.length) !== 'matches')
      throw new Error('cannot read a matches() call');
    return `${source.slice(0, call.start)}${LINEAR_MATCHES}${source.slice(call.start + 'matches'.length)}`;
  }
  // x.matches(p): the receiver's own text, the parentheses around it, then `.matches(`.
  const receiver = args[1] as AstNode;
  let after = receiver.end;
  let closing = 0;
  while (after < source.length && /[\s)]/.test(source[after] ?? '')) if (source[after++] === ')') closing += 1;
  const method = /^\.\s*matches\s*\(/.exec(source.slice(after));
  if (!method) throw new Error('cannot read a .matches() call');
  let start = receiver.start;
  for (let open = 0; open < closing; start -= 1) {
    const character = source[start - 1];
    if (character === '(') open += 1;
    else if (!/\s/.test(character ?? '')) throw new Error('cannot read a .matches() call');
  }
  const argumentsText = source.slice(after + method[0].length, call.end - 1);
  return `${source.slice(0, start)}${LINEAR_MATCHES}(${source.slice(receiver.start, receiver.end)}, ${argumentsText})${source.slice(call.end)}`;
}
