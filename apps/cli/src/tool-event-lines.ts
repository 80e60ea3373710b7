import { ToolApprovalResponse, type EventOfType } from '@interlock/sdk-types';
import { describeResponse } from './approval/describe-response.js';
import { callLabel } from './approval/tool-call-view.js';
import { makeVisible } from './approval/visible-text.js';
import type { TerminalStyle } from './terminal-style.js';

type ToolEvent = EventOfType<
  'TOOL_CALL_REQUESTED' | 'TOOL_CALL_DECIDED' | 'TOOL_CALL_STARTED' | 'TOOL_CALL_COMPLETED' | 'TOOL_CALL_FAILED'
>;
type InteractionEvent = EventOfType<'USER_INTERACTION_REQUESTED' | 'USER_INTERACTION_RESPONDED'>;

const INDENT = '  ';
const LONGEST_DETAIL = 160;

/**
 * One readable line per tool-call event, each naming the call (`bash(ls -la)`) so calls
 * that run side by side stay apart, coloured by outcome: allow and success green, ask
 * yellow, deny and failure red.
 *
 * ```text
 * ⚙ bash(rm -rf /) proposed: {"command":"rm -rf /"}
 *   bash(rm -rf /) → deny (rule shell:banned:rm-root)
 *   read_file(README.md) ▶ running
 *   read_file(README.md) ✔ SUCCESS: # Demo project…
 *   bash(ls -la) ✘ EXECUTION_REJECTED: This call was not run: the user rejected it: not today…
 * ```
 */
export function toolEventLine(event: ToolEvent, style: TerminalStyle): string {
  const label = callLabel(event.toolName, event.arguments);
  switch (event.type) {
    case 'TOOL_CALL_REQUESTED':
      return `⚙ ${style.bold(label)} proposed: ${style.dim(shorten(makeVisible(JSON.stringify(event.arguments))))}`;
    case 'TOOL_CALL_DECIDED': {
      const paint = event.decision === 'allow' ? style.green : event.decision === 'ask' ? style.yellow : style.red;
      const by = event.rule === 'person' ? 'by a person' : `rule ${event.rule}`;
      return `${INDENT}${label} ${paint(`→ ${event.decision}`)} ${style.dim(`(${by})`)}`;
    }
    case 'TOOL_CALL_STARTED':
      return style.dim(`${INDENT}${label} ▶ running`);
    case 'TOOL_CALL_COMPLETED':
      return `${INDENT}${label} ${style.green(`✔ ${event.status}`)}${style.dim(`: ${shorten(preview(event.result))}`)}`;
    case 'TOOL_CALL_FAILED':
      return `${INDENT}${label} ${style.red(`✘ ${event.status}: ${shorten(flatten(makeVisible(event.message.replace(/^\[[A-Z_]+\]\s*/, ''))))}`)}`;
  }
}

/**
 * Lines for the lifecycle of tool approvals, which read better named by their call than
 * by their node: remembers each approval's call, and returns undefined for events that are
 * not about a tool approval (the caller prints those its own way).
 */
export class ToolApprovalEventLines {
  private readonly labels = new Map<string, string>();

  constructor(private readonly style: TerminalStyle) {}

  lineFor(event: InteractionEvent): string | undefined {
    if (event.type === 'USER_INTERACTION_REQUESTED') {
      const details = event.request.toolApproval;
      if (!details) return undefined;
      const label = callLabel(details.toolName, details.toolParameters);
      this.labels.set(event.interactionId, label);
      if (details.stage === 'recovery')
        return this.style.dim(
          `◆ ${label}: its outcome is unknown: did it run (done), run it again (retry), or failed?`,
        );
      const stage = details.stage === 'result' ? 'its result needs' : 'it needs';
      return this.style.dim(`◆ ${label}: ${stage} your approval`);
    }
    const label = this.labels.get(event.interactionId);
    if (label === undefined) return undefined;
    const response = ToolApprovalResponse.safeParse(event.input);
    const answer = response.success ? describeResponse(response.data) : JSON.stringify(event.input);
    const responder = event.responder === undefined ? '' : ` by ${event.responder}`;
    return this.style.dim(`✓ ${label} answered${responder}: ${answer}`);
  }
}

function preview(result: unknown): string {
  // JSON.stringify(undefined) is undefined, whatever its declared type says.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- see above
  const text = typeof result === 'string' ? result : (JSON.stringify(result) ?? 'undefined');
  return flatten(makeVisible(text));
}

function flatten(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ⏎ ');
}

function shorten(text: string): string {
  return text.length > LONGEST_DETAIL ? `${text.slice(0, LONGEST_DETAIL - 1)}…` : text;
}
