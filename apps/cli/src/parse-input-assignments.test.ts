import { describe, expect, it } from 'vitest';
import { parseInputAssignments } from './parse-input-assignments.js';
import { UsageError } from './usage-error.js';

describe('parseInputAssignments', () => {
  it('reads key=value as text, keeping later = signs, and key:=json as JSON', () => {
    expect(parseInputAssignments(['task=a=b', 'count:=3', 'tags:=["x"]'])).toEqual({
      task: 'a=b',
      count: 3,
      tags: ['x'],
    });
  });

  it.each([
    ['task', 'has no "="'],
    ['1st=x', 'is not a variable name'],
    ['count:={', 'is not valid JSON'],
  ])('refuses %j as a usage error that says why', (assignment, why) => {
    expect(() => parseInputAssignments([assignment])).toThrow(UsageError);
    expect(() => parseInputAssignments([assignment])).toThrow(why);
  });

  it('refuses the same variable twice', () => {
    expect(() => parseInputAssignments(['task=a', 'task=b'])).toThrow('sets "task" twice');
  });
});
