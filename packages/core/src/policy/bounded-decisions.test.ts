import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateExpression } from '../expressions/expressions.js';
import { createShellClassifier, DEFAULT_TIME_BUDGET_MS } from './shell/index.js';

/*
 * Bounded time on every input (issue 13, class 1). A proposed call is decided in bounded
 * time whatever the model wrote: classification finishes or stops at its budget and asks
 * (never allows), and CEL's matches() runs in linear time. The bound checked here is
 * generous (a hang is what it catches); the worst cases are measured in bench/ (micro).
 */

const shell = await createShellClassifier();
/** A hang is minutes; a bounded decision is milliseconds. */
const HANG_MS = 2_000;

function timed<T>(work: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = work();
  return { value, ms: performance.now() - started };
}

const braceGroup = fc.constantFrom('{a,b}', '{a,b,c}', '{1..9}', '{a..z}', '{{a,b},{c,d}}', '{,x}', '{rm,-rf,/}');

describe('the shell classifier decides in bounded time (issue 13)', () => {
  it('brace expressions: any number of groups, any nesting, never expanded before the cap', () => {
    fc.assert(
      fc.property(
        fc.array(braceGroup, { minLength: 1, maxLength: 400 }),
        fc.constantFrom('echo ', 'ls ', 'rm ', ''),
        (groups, program) => {
          const { value, ms } = timed(() => shell.classify(`${program}${groups.join('')}`));
          expect(ms).toBeLessThan(HANG_MS);
          expect(value.verdict).not.toBe('safe');
        },
      ),
      { numRuns: 60 },
    );
  });

  it('adversarial command lines: nesting, substitutions, quotes, long words', () => {
    const piece = fc.constantFrom(
      '$(',
      ')',
      '`',
      '"',
      "'",
      '{',
      '}',
      '(',
      ')',
      ';',
      '|',
      '&&',
      ' ',
      'a',
      '\\',
      '$',
      '<<EOF\n',
      '\nEOF\n',
      'eval ',
      'sh -c ',
      '{a,b}',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 3_000 }), (pieces) => {
        const { ms } = timed(() => shell.classify(pieces.join('')));
        expect(ms).toBeLessThan(HANG_MS);
      }),
      { numRuns: 60 },
    );
  });

  it('stops at its time budget and asks, never allows', async () => {
    // A budget of 1 ms cannot hold a long pipeline of nested substitutions: it stops and asks.
    const hurried = await createShellClassifier({ timeBudgetMs: 1 });
    const heavy = Array.from({ length: 120 }, (_, index) => `ls ${'$(echo '.repeat(8)}x${')'.repeat(8)} ${index}`).join(
      ' | ',
    );
    const result = hurried.classify(heavy);
    expect(result).toMatchObject({ verdict: 'ask', rule: 'shell:too-complex' });
    expect(DEFAULT_TIME_BUDGET_MS).toBeGreaterThan(0);
  });
});

describe('CEL matches() runs in linear time (issue 13)', () => {
  const nested = ['^(a+)+$', '(a|a)*$', '^(a|aa)+$', '(.*a){12}$', '^([a-z]+)*!$', '(\\w+\\s?)*$'];

  it.each(nested)('decides %s on model-written text at once', (pattern) => {
    const content = `${'a'.repeat(5_000)}!`;
    const { value, ms } = timed(() =>
      evaluateExpression(`args.content.matches("${pattern.replaceAll('\\', '\\\\')}")`, { args: { content } }),
    );
    expect(ms).toBeLessThan(HANG_MS);
    expect(typeof value).toBe('boolean');
  });

  it('keeps CEL semantics: a match anywhere, RE2 syntax', () => {
    expect(evaluateExpression('"release/v1.2".matches("v[0-9]+\\\\.[0-9]+$")', {})).toBe(true);
    expect(evaluateExpression('matches("abc", "^b")', {})).toBe(false);
    expect(evaluateExpression('("a" + "b").matches(x)', { x: 'ab' })).toBe(true);
  });

  it('any pattern the model writes, on any text, returns at once', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a()|+*?.{}0-9,\\^$[\]w-]{1,40}$/),
        fc.string({ maxLength: 2_000 }),
        (pattern, text) => {
          const { ms } = timed(() => {
            try {
              evaluateExpression('text.matches(pattern)', { text, pattern });
            } catch {
              // an invalid pattern is refused; refusing is bounded too
            }
          });
          expect(ms).toBeLessThan(HANG_MS);
        },
      ),
      { numRuns: 200 },
    );
  });
});
