import { describe, expect, it } from 'vitest';
import { evaluateCondition, evaluateExpression, renderDeep, renderTemplate, stringsIn } from './expressions.js';

describe('expressions (CEL) and templates', () => {
  it('keeps the type of a template that is exactly one expression', () => {
    expect(renderTemplate("{{ input == 'yes' }}", { input: 'yes' })).toBe(true);
    expect(renderTemplate('{{ count + 1 }}', { count: 2 })).toBe(3);
    expect(renderTemplate('{{ items }}', { items: [1, 'a'] })).toEqual([1, 'a']);
  });

  it('interpolates expressions inside text', () => {
    expect(renderTemplate('Hi {{ name }}, you have {{ count }} items', { name: 'Ada', count: 2 })).toBe(
      'Hi Ada, you have 2 items',
    );
    expect(renderTemplate('data: {{ data }}', { data: { a: 1 } })).toBe('data: {"a":1}');
    expect(renderTemplate('no expressions here', {})).toBe('no expressions here');
  });

  it('treats a condition as true only when it is exactly true', () => {
    expect(evaluateCondition('score > 5', { score: 6 })).toBe(true);
    expect(evaluateCondition('{{ name }}', { name: 'x' })).toBe(false);
  });

  it('names the expression when evaluation fails', () => {
    expect(() => evaluateExpression('missing + 1', {})).toThrow(/`missing \+ 1` failed/);
    expect(() => evaluateExpression('1 +', {})).toThrow(expect.objectContaining({ code: 'EXPRESSION_INVALID' }));
  });

  it('returns JavaScript numbers, and accepts fractional numbers as doubles', () => {
    expect(evaluateExpression('price * 2.0', { price: 1.5 })).toBe(3);
    expect(typeof evaluateExpression('1 + 2', {})).toBe('number');
  });
});

describe('templates with several expressions', () => {
  it('interpolates each of them instead of evaluating the whole as one', () => {
    expect(renderTemplate('{{ a }} and {{ b }}', { a: 1, b: 'two' })).toBe('1 and two');
  });
});

describe('templates inside structured values (TOOL node arguments)', () => {
  it('renders every nested string and keeps everything else', () => {
    expect(
      renderDeep(
        { path: '{{ dir }}/a.txt', options: { mode: '{{ mode }}', tags: ['{{ dir }}', 3] }, force: true },
        { dir: 'src', mode: 644 },
      ),
    ).toEqual({
      path: 'src/a.txt',
      options: { mode: 644, tags: ['src', 3] },
      force: true,
    });
  });

  it('lists nested strings with their paths, for validation', () => {
    expect(stringsIn({ a: 'x', b: [{ c: 'y' }] })).toEqual([
      { path: 'a', text: 'x' },
      { path: 'b[0].c', text: 'y' },
    ]);
  });
});
