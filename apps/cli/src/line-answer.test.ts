import type { InputKind } from '@interlock/sdk-types';
import { describe, expect, it } from 'vitest';
import { describeAnswer, interpretLine } from './line-answer.js';

describe('interpretLine', () => {
  const choice: InputKind = { kind: 'choice', options: ['yes', { value: 'later', label: 'Ask me later' }] };

  it('accepts a choice by value, by label (any case) or by number', () => {
    expect(interpretLine(choice, 'yes')).toEqual({ status: 'valid', value: 'yes' });
    expect(interpretLine(choice, 'ask me later')).toEqual({ status: 'valid', value: 'later' });
    expect(interpretLine(choice, '2')).toEqual({ status: 'valid', value: 'later' });
  });

  it('rejects a choice that is not an option, naming the options', () => {
    const answer = interpretLine(choice, 'maybe');
    expect(answer.status).toBe('invalid');
    expect(answer).toMatchObject({ problem: expect.stringContaining('1) yes  2) Ask me later') });
  });

  it('reads yes/no for a confirm and refuses anything else', () => {
    expect(interpretLine({ kind: 'confirm' }, ' Y ')).toEqual({ status: 'valid', value: true });
    expect(interpretLine({ kind: 'confirm' }, 'no')).toEqual({ status: 'valid', value: false });
    expect(interpretLine({ kind: 'confirm' }, 'sure')).toMatchObject({ status: 'invalid' });
  });

  it('never turns an empty line into an answer unless the question has a default', () => {
    expect(interpretLine({ kind: 'confirm' }, '')).toMatchObject({ status: 'invalid' });
    expect(interpretLine({ kind: 'choice', options: ['yes', 'no'] }, '')).toMatchObject({ status: 'invalid' });
    expect(interpretLine({ kind: 'confirm', default: false }, '')).toEqual({ status: 'valid', value: false });
    expect(interpretLine({ kind: 'text', default: 'Sichuan' }, '  ')).toEqual({ status: 'valid', value: 'Sichuan' });
  });

  it('parses JSON and explains JSON that does not parse', () => {
    expect(interpretLine({ kind: 'json' }, '{"count": 3}')).toEqual({ status: 'valid', value: { count: 3 } });
    expect(interpretLine({ kind: 'json' }, '{count: 3}')).toMatchObject({
      status: 'invalid',
      problem: expect.stringContaining('JSON'),
    });
  });

  it('describes what to type for each kind', () => {
    expect(describeAnswer({ kind: 'text', placeholder: 'e.g. Sichuan' })).toBe('any text (e.g. Sichuan)');
    expect(describeAnswer({ kind: 'confirm' })).toBe('yes or no');
  });
});
