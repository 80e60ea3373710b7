import type { ApprovalDecision } from '@interlock/core';
import { makeVisible } from './approval/visible-text.js';
import type { TerminalStyle } from './terminal-style.js';

const CONSEQUENCE = {
  allow: 'would run without asking',
  ask: 'would wait for a person to approve it',
  deny: 'would be refused',
} as const;

/** The part of a decision `interlock explain --json` prints, in this key order. */
export interface DecisionJson {
  outcome: ApprovalDecision['outcome'];
  rule: string;
  reason: string;
  path: ApprovalDecision['path'];
}

/** The decision as `explain --json` prints it: outcome, rule, reason and path, nothing else. */
export function decisionJson(decision: ApprovalDecision): DecisionJson {
  return { outcome: decision.outcome, rule: decision.rule, reason: decision.reason, path: decision.path };
}

/**
 * The decision for people: a headline that starts with the outcome, the deciding rule and
 * its reason, then every rule the pipeline looked at, in order (the last one decided).
 *
 * ```text
 * deny: bash {"command":"rm -rf /"} would be refused
 *   rule    shell:banned:rm-root
 *   reason  banned command: …
 *   path (the rules looked at, in order; the last one decided):
 *     · approval:disabled     skip
 *     ✘ shell:banned:rm-root  deny   banned command: …
 * ```
 */
export function decisionText(
  toolName: string,
  parameters: Record<string, unknown>,
  decision: ApprovalDecision,
  style: TerminalStyle,
): string {
  const paint = paintFor(decision.outcome, style);
  const call = `${makeVisible(toolName)} ${makeVisible(JSON.stringify(parameters))}`;
  const width = Math.max(...decision.path.map((step) => step.rule.length));
  const steps = decision.path.map((step) => {
    const mark =
      step.result === 'skip'
        ? style.dim('·')
        : paintFor(step.result, style)(step.result === 'allow' ? '✔' : step.result === 'ask' ? '?' : '✘');
    const result =
      step.result === 'skip' ? style.dim(step.result.padEnd(5)) : paintFor(step.result, style)(step.result.padEnd(5));
    const reason = step.reason === undefined ? '' : `  ${style.dim(step.reason)}`;
    return `    ${mark} ${step.rule.padEnd(width)}  ${result}${reason}`.trimEnd();
  });
  return [
    `${paint(style.bold(decision.outcome))}: ${call} ${CONSEQUENCE[decision.outcome]}`,
    `  rule    ${style.bold(decision.rule)}`,
    `  reason  ${decision.reason}`,
    `  path ${style.dim('(the rules looked at, in order; the last one decided)')}:`,
    ...steps,
    '',
  ].join('\n');
}

function paintFor(outcome: ApprovalDecision['outcome'], style: TerminalStyle): (text: string) => string {
  if (outcome === 'allow') return style.green;
  if (outcome === 'ask') return style.yellow;
  return style.red;
}
