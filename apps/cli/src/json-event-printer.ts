import type { ThreadOutcome } from '@interlock/core';
import type { InterlockEvent } from '@interlock/sdk-types';
import type { AuditSummary, EventPrinter, RunSummary } from './event-printer.js';
import { exitCodeOf } from './exit-code.js';

/** The last line of `--json` output: how the run ended and the process's exit code. */
export interface JsonOutcomeLine {
  type: 'OUTCOME';
  outcome: ThreadOutcome;
  steps?: number;
  /** True when Ctrl+C left the thread waiting. */
  interrupted: boolean;
  /** The thread's tool-call decisions in the audit trail, when there were any. */
  audit?: AuditSummary;
  exitCode: number;
}

/**
 * Prints for programs (`--json`): each event as one JSON line, then one `OUTCOME` line.
 * Questions and advice go to standard error, so standard output stays parseable.
 */
export class JsonEventPrinter implements EventPrinter {
  /** @param output - usually `process.stdout`. */
  constructor(private readonly output: NodeJS.WritableStream) {}

  printEvent(event: InterlockEvent): void {
    this.output.write(`${JSON.stringify(event)}\n`);
  }

  printOutcome(outcome: ThreadOutcome, summary: RunSummary): void {
    const line: JsonOutcomeLine = {
      type: 'OUTCOME',
      outcome,
      ...(summary.steps === undefined ? {} : { steps: summary.steps }),
      interrupted: summary.interrupted === true,
      ...(summary.audit === undefined ? {} : { audit: summary.audit }),
      exitCode: exitCodeOf(outcome, summary.interrupted === true),
    };
    this.output.write(`${JSON.stringify(line)}\n`);
  }

  breakLine(): void {
    // Every JSON line is complete.
  }
}
