import type { ThreadOutcome } from '@interlock/core';
import type { InterlockEvent } from '@interlock/sdk-types';
import type { TerminalStyle } from './terminal-style.js';
import { ToolApprovalEventLines, toolEventLine } from './tool-event-lines.js';

/** Facts about a finished run that the outcome itself does not carry. */
export interface RunSummary {
  /** Nodes the thread executed, when known. */
  steps?: number;
  /** The person pressed Ctrl+C, so the thread waits. */
  interrupted?: boolean;
  /** The thread's tool-call decisions in the audit trail, when there were any. */
  audit?: AuditSummary;
}

/** How many tool-call decisions the audit trail recorded for the thread, and whether its hash chain holds. */
export interface AuditSummary {
  entries: number;
  allowed: number;
  denied: number;
  chainValid: boolean;
}

/** Shows a run to the person: its events as they happen, then how it ended. */
export interface EventPrinter {
  /** Prints one event of the thread. */
  printEvent(event: InterlockEvent): void;
  /** Prints how the run ended; called once, last. */
  printOutcome(outcome: ThreadOutcome, summary: RunSummary): void;
  /** Ends a line left open by streamed text, before something else is written. */
  breakLine(): void;
}

const INDENT = '  ';
const SPINNER_FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * Prints events for people: node starts dimmed, model text streamed as it arrives,
 * questions and answers with their reasons, and a summary line at the end.
 */
export class ReadableEventPrinter implements EventPrinter {
  private midLine = false;
  private spinner: { timer: ReturnType<typeof setInterval>; frame: number } | undefined;
  private readonly streamedNodes = new Set<string>();
  private readonly approvalLines: ToolApprovalEventLines;

  /**
   * @param output - usually `process.stdout`.
   * @param style - colours, or plain text when `output` is not a terminal.
   */
  constructor(
    private readonly output: NodeJS.WritableStream,
    private readonly style: TerminalStyle,
    /** Draw a spinner while the model works (a terminal only). */
    private readonly animate = false,
  ) {
    this.approvalLines = new ToolApprovalEventLines(style);
  }

  printEvent(event: InterlockEvent): void {
    const { style } = this;
    if (event.type !== 'LLM_CALL_STARTED') this.stopSpinner();
    switch (event.type) {
      case 'THREAD_STARTED': {
        const input = Object.keys(event.input).length === 0 ? '' : ` with ${JSON.stringify(event.input)}`;
        this.line(style.dim(`Thread ${event.threadId} of workflow "${event.workflowId}" started${input}`));
        return;
      }
      case 'THREAD_RESUMED':
        this.line(style.dim(`Thread ${event.threadId} resumed`));
        return;
      case 'NODE_STARTED':
        this.line(style.dim(`› ${event.nodeId} (${event.nodeType})`));
        return;
      case 'NODE_FAILED':
        this.line(style.red(`✘ node "${event.nodeId}" failed: ${event.error.code}: ${event.error.message}`));
        return;
      case 'LLM_TEXT_DELTA':
        this.streamedNodes.add(event.nodeId);
        this.stream(event.delta);
        return;
      case 'LLM_CALL_COMPLETED':
        if (!this.streamedNodes.delete(event.nodeId)) this.stream(event.text);
        this.breakLine();
        return;
      case 'LLM_CALL_FAILED':
        this.streamedNodes.delete(event.nodeId);
        this.line(style.red(`✘ model "${event.model}" failed: ${event.error.message}`));
        return;
      case 'USER_INTERACTION_REQUESTED':
        this.line(
          this.approvalLines.lineFor(event) ??
            style.dim(`◆ question from node "${event.nodeId}" (${event.operationType})`),
        );
        return;
      case 'USER_INTERACTION_RESPONDED': {
        const approval = this.approvalLines.lineFor(event);
        if (approval !== undefined) {
          this.line(approval);
          return;
        }
        const responder = event.responder === undefined ? '' : ` by ${event.responder}`;
        this.line(style.dim(`✓ answered${responder}: ${JSON.stringify(event.input)}`));
        return;
      }
      case 'USER_INTERACTION_PROCESSED':
        if (event.operationType === 'TOOL_APPROVAL') return;
        for (const [name, value] of Object.entries(event.updatedVariables ?? {})) {
          this.line(style.dim(`${INDENT}${name} = ${JSON.stringify(value)}`));
        }
        if (event.appendedMessage !== undefined) {
          this.line(style.dim(`${INDENT}added to the conversation: ${JSON.stringify(event.appendedMessage)}`));
        }
        return;
      case 'USER_INTERACTION_FAILED':
        this.line(style.red(`✘ question from node "${event.nodeId}" failed (${event.reason}): ${event.message}`));
        return;
      case 'TOOL_CALL_REQUESTED':
      case 'TOOL_CALL_DECIDED':
      case 'TOOL_CALL_STARTED':
      case 'TOOL_CALL_COMPLETED':
      case 'TOOL_CALL_FAILED':
        this.line(toolEventLine(event, style));
        return;
      case 'LLM_CALL_STARTED':
        this.startSpinner(event.model);
        return;
      case 'THREAD_SUSPENDED':
      case 'NODE_COMPLETED':
      case 'THREAD_COMPLETED':
      case 'THREAD_FAILED':
      case 'THREAD_CANCELLED':
        // Shown by the summary, or by the events around them.
        return;
    }
  }

  printOutcome(outcome: ThreadOutcome, summary: RunSummary): void {
    this.stopSpinner();
    this.printStatus(outcome, summary);
    const { audit } = summary;
    if (audit === undefined || audit.entries === 0) return;
    const decisions = `${audit.entries} tool-call ${audit.entries === 1 ? 'decision' : 'decisions'} (${audit.allowed} allowed, ${audit.denied} denied)`;
    const chain = audit.chainValid ? this.style.dim(' · hash chain intact') : this.style.red(' · hash chain BROKEN');
    this.line(`${this.style.bold('Audit:')} ${decisions}${chain}`);
  }

  private printStatus(outcome: ThreadOutcome, summary: RunSummary): void {
    const { style } = this;
    const facts = [
      ...(summary.steps === undefined ? [] : [`${summary.steps} ${summary.steps === 1 ? 'step' : 'steps'}`]),
      `thread ${outcome.threadId}`,
    ];
    const details = style.dim(` · ${facts.join(' · ')}`);
    switch (outcome.status) {
      case 'completed':
        this.line(style.green(style.bold('✔ completed')) + details);
        if (outcome.output !== null && outcome.output !== undefined) {
          this.line(style.bold('Output:'));
          this.line(typeof outcome.output === 'string' ? outcome.output : JSON.stringify(outcome.output, null, 2));
        }
        return;
      case 'failed': {
        const at = outcome.error.nodeId === undefined ? '' : ` at node "${outcome.error.nodeId}"`;
        this.line(style.red(style.bold('✘ failed')) + details);
        this.line(style.red(`${outcome.error.code}${at}: ${outcome.error.message}`));
        return;
      }
      case 'cancelled':
        this.line(style.yellow(style.bold('✘ cancelled')) + details);
        return;
      case 'waiting': {
        const status =
          summary.interrupted === true ? '⏸ interrupted, waiting for an answer' : '⏸ waiting for an answer';
        this.line(style.yellow(style.bold(status)) + details);
        return;
      }
      case 'scheduled':
        this.line(style.yellow(style.bold('⏵ handed to a worker')) + details);
        return;
    }
  }

  breakLine(): void {
    this.stopSpinner();
    if (!this.midLine) return;
    this.output.write('\n');
    this.midLine = false;
  }

  private line(text: string): void {
    this.breakLine();
    this.output.write(`${text}\n`);
  }

  /** `⠋ model "default" is working…` on its own line, redrawn until the model's first text or the next event. */
  private startSpinner(model: string): void {
    if (!this.animate || this.spinner !== undefined || this.midLine) return;
    const draw = () => {
      const frame = SPINNER_FRAMES[spinner.frame++ % SPINNER_FRAMES.length] ?? '';
      this.output.write(`\r${this.style.cyan(frame)} ${this.style.dim(`model "${model}" is working…`)}`);
    };
    const spinner = { timer: setInterval(draw, 80), frame: 0 };
    spinner.timer.unref();
    this.spinner = spinner;
    draw();
  }

  private stopSpinner(): void {
    if (this.spinner === undefined) return;
    clearInterval(this.spinner.timer);
    this.spinner = undefined;
    this.output.write('\r\u001B[2K');
  }

  /** Writes model text as it streams, indented, keeping track of an open line. */
  private stream(text: string): void {
    for (const [index, part] of text.split('\n').entries()) {
      if (index > 0) {
        this.output.write('\n');
        this.midLine = false;
      }
      if (part === '') continue;
      if (!this.midLine) this.output.write(INDENT);
      this.output.write(part);
      this.midLine = true;
    }
  }
}
