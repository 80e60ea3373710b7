import type { ICheckpointStore } from '../persistence/checkpoint-store.js';
import type { GlobalChange } from '../persistence/unit-of-work.js';
import type { ApprovalDecision } from '../policy/decide-approval.js';
import type { Tool } from './define-tool.js';

/** Where pins are kept: a global-variable scope no workflow id can take. */
export const TOOL_PINS_SCOPE = 'interlock:tool-pins';

/** The definition a tool had when it was first approved. */
export interface ToolPin {
  hash: string;
  definition: Record<string, unknown>;
  pinnedAt: string;
}

/** How a pinned tool's definition compares with the one approved before. */
export type PinState =
  { state: 'new' } | { state: 'same' } | { state: 'changed'; previousHash: string; hash: string; diff: string };

/**
 * Pins of tools defined elsewhere (MCP servers, issue 17): the first approval keeps the hash
 * of the definition; a later definition that differs is a new tool — asked about again,
 * with the change shown as a diff — so a server cannot swap what a tool does after a person
 * approved it (the "rug pull").
 */
export class ToolPins {
  constructor(private readonly store: Pick<ICheckpointStore, 'getGlobalVariables'>) {}

  async all(): Promise<Record<string, ToolPin>> {
    return (await this.store.getGlobalVariables(TOOL_PINS_SCOPE)) as Record<string, ToolPin>;
  }

  async state(tool: Tool): Promise<PinState> {
    return pinState(tool, (await this.all())[tool.name]);
  }

  /** A pinned tool whose definition changed since it was approved is asked about again, whatever else allowed it. */
  async checkDecision(tool: Tool | undefined, decision: ApprovalDecision): Promise<ApprovalDecision> {
    if (!tool?.pinned || decision.outcome === 'deny') return decision;
    const pin = await this.state(tool);
    if (pin.state !== 'changed') return decision;
    return {
      ...decision,
      outcome: 'ask',
      rule: 'pin:definition-changed',
      reason: `the definition of ${tool.name} changed since it was approved (was ${pin.previousHash.slice(0, 12)}, now ${pin.hash.slice(0, 12)})`,
      rememberable: false,
    };
  }

  /** What changed in a pinned tool's definition since its approval, for the approver; undefined when nothing did. */
  async changeOf(tool: Tool): Promise<{ previousHash: string; hash: string; diff: string } | undefined> {
    if (!tool.pinned) return undefined;
    const pin = await this.state(tool);
    return pin.state === 'changed' ? { previousHash: pin.previousHash, hash: pin.hash, diff: pin.diff } : undefined;
  }

  /**
   * After an approval: the write that pins the tool's definition (the first approval), or
   * moves its pin (an approval of a changed definition); none when the pin stands.
   */
  async pinChange(tool: Tool, at: string): Promise<GlobalChange | undefined> {
    if (!tool.pinned || (await this.state(tool)).state === 'same') return undefined;
    const pin: ToolPin = { hash: tool.definitionHash, definition: tool.pinned.definition, pinnedAt: at };
    return { kind: 'set', scope: TOOL_PINS_SCOPE, name: tool.name, value: pin };
  }
}

/** How `tool` compares with `pin`. */
export function pinState(tool: Tool, pin: ToolPin | undefined): PinState {
  if (!tool.pinned || pin === undefined) return { state: 'new' };
  if (pin.hash === tool.definitionHash) return { state: 'same' };
  return {
    state: 'changed',
    previousHash: pin.hash,
    hash: tool.definitionHash,
    diff: lineDiff(pretty(pin.definition), pretty(tool.pinned.definition)),
  };
}

const pretty = (value: unknown): string[] => JSON.stringify(value, null, 2).split('\n');

/** Bounds on a definition diff (issue 24): the table the diff needs, and the lines shown. */
export const DIFF_LIMITS = { maxCells: 1_000_000, maxShownLines: 400 } as const;

/**
 * A unified-style diff of two texts: `-` removed, `+` added, two lines of context around
 * changes. Bounded whatever a server sends: lines both sides share at the start and end are
 * set aside first; a middle too large for the table ({@link DIFF_LIMITS}) is shown as the
 * lines removed then the lines added; at most `maxShownLines` lines are shown.
 */
export function lineDiff(before: readonly string[], after: readonly string[]): string {
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head++;
  let tail = 0;
  while (
    tail < before.length - head &&
    tail < after.length - head &&
    before[before.length - 1 - tail] === after[after.length - 1 - tail]
  )
    tail++;
  const removed = before.slice(head, before.length - tail);
  const added = after.slice(head, after.length - tail);
  const middle =
    (removed.length + 1) * (added.length + 1) > DIFF_LIMITS.maxCells
      ? [
          ...removed.map((text) => ({ mark: '-' as const, text })),
          ...added.map((text) => ({ mark: '+' as const, text })),
        ]
      : commonSubsequenceDiff(removed, added);
  const lines: DiffLine[] = [
    ...before.slice(0, head).map((text) => ({ mark: ' ' as const, text })),
    ...middle,
    ...before.slice(before.length - tail).map((text) => ({ mark: ' ' as const, text })),
  ];
  return showChanges(lines);
}

interface DiffLine {
  mark: ' ' | '-' | '+';
  text: string;
}

/** The longest-common-subsequence diff of two texts small enough for its table. */
function commonSubsequenceDiff(before: readonly string[], after: readonly string[]): DiffLine[] {
  const width = after.length + 1;
  const common = new Uint32Array((before.length + 1) * width);
  const at = (i: number, j: number): number => common[i * width + j] ?? 0;
  for (let i = before.length - 1; i >= 0; i--) {
    for (let j = after.length - 1; j >= 0; j--) {
      common[i * width + j] = before[i] === after[j] ? at(i + 1, j + 1) + 1 : Math.max(at(i + 1, j), at(i, j + 1));
    }
  }
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < before.length || j < after.length) {
    if (i < before.length && j < after.length && before[i] === after[j]) {
      lines.push({ mark: ' ', text: before[i] ?? '' });
      i++;
      j++;
    } else if (i < before.length && (j === after.length || at(i + 1, j) >= at(i, j + 1))) {
      lines.push({ mark: '-', text: before[i++] ?? '' });
    } else {
      lines.push({ mark: '+', text: after[j++] ?? '' });
    }
  }
  return lines;
}

/** The changed lines with two lines of context, `…` for what is left out, cut at `maxShownLines`. */
function showChanges(lines: readonly DiffLine[]): string {
  const changed = lines.map((line) => line.mark !== ' ');
  const nearChange = (index: number) => changed.slice(Math.max(0, index - 2), index + 3).some(Boolean);
  const shown: string[] = [];
  let left = 0;
  lines.forEach((line, index) => {
    if (shown.length >= DIFF_LIMITS.maxShownLines) {
      if (line.mark !== ' ') left++;
    } else if (nearChange(index)) shown.push(`${line.mark} ${line.text}`);
    else if (shown.at(-1) !== '  …') shown.push('  …');
  });
  if (left > 0) shown.push(`  … and ${left} more changed lines`);
  return shown.join('\n');
}
