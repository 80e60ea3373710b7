import type { InputKind } from '@interlock/sdk-types';

/** One question as the terminal asks it. */
export interface Question {
  /** The question, as rendered by the engine; it may span several lines. */
  message: string;
  /** How to answer it. */
  kind: InputKind;
  /** A short note shown after the question, e.g. the deadline. */
  hint?: string;
  /** When the question times out (ms since the epoch): a terminal shows a countdown. */
  deadline?: number;
}

/** How asking a question ended. */
export type PromptResult =
  /** The person answered; `value` is what the engine accepts for the question's kind. */
  | { status: 'answered'; value: unknown }
  /** The person pressed Ctrl+C. */
  | { status: 'interrupted' }
  /** Standard input ended before an answer was read. */
  | { status: 'no-input' }
  /** The engine stopped waiting (answered elsewhere, timed out, cancelled). */
  | { status: 'aborted' };

/** Asks a person one question at a time: interactively in a terminal, or line by line from a pipe. */
export interface Prompter {
  /** Asks `question`; `signal` aborts the question when the engine no longer needs the answer. */
  ask(question: Question, signal: AbortSignal): Promise<PromptResult>;
  /** Releases standard input so the process can exit. */
  close(): void;
}
