import type { ApprovalDecision } from '@interlock/core';
import { describe, expect, it } from 'vitest';
import { decisionJson, decisionText } from './decision-text.js';
import { createTerminalStyle } from './terminal-style.js';

const denied: ApprovalDecision = {
  outcome: 'deny',
  rule: 'shell:banned:rm-root',
  reason: 'banned command: recursive delete of /',
  path: [
    { rule: 'approval:disabled', result: 'skip' },
    { rule: 'deny-rules', result: 'skip' },
    { rule: 'shell:banned:rm-root', result: 'deny', reason: 'banned command: recursive delete of /' },
  ],
  notFound: false,
  rememberable: false,
};

describe('decisionText', () => {
  it('starts with the outcome, then the rule, the reason and the path of rules', () => {
    expect(decisionText('bash', { command: 'rm -rf /' }, denied, createTerminalStyle(false))).toBe(
      [
        'deny: bash {"command":"rm -rf /"} would be refused',
        '  rule    shell:banned:rm-root',
        '  reason  banned command: recursive delete of /',
        '  path (the rules looked at, in order; the last one decided):',
        '    · approval:disabled     skip',
        '    · deny-rules            skip',
        '    ✘ shell:banned:rm-root  deny   banned command: recursive delete of /',
        '',
      ].join('\n'),
    );
  });

  it('shows hidden characters of the arguments', () => {
    expect(decisionText('bash', { command: 'ls\u200B' }, denied, createTerminalStyle(false))).toContain(
      '{"command":"ls⟨U+200B⟩"}',
    );
  });
});

describe('decisionJson', () => {
  it('keeps exactly outcome, rule, reason and path', () => {
    expect(Object.keys(decisionJson(denied))).toEqual(['outcome', 'rule', 'reason', 'path']);
  });
});
