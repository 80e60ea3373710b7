import { useEffect, useState, type Status, type Theme } from '@inquirer/core';
import type { TerminalStyle } from './terminal-style.js';

/** Where a prompt reads keys and draws; aborting the signal closes it. */
export interface PromptContext {
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
  signal?: AbortSignal;
}

/** The "12 s left" of a question with a deadline. */
export class Countdown {
  constructor(
    private readonly deadline: number,
    private readonly style: TerminalStyle,
    private readonly now: () => number = Date.now,
  ) {}

  /** The time left, for a person: `1 min 05 s left`, `9 s left`. */
  left(): string {
    const seconds = Math.max(0, Math.ceil((this.deadline - this.now()) / 1000));
    const minutes = Math.floor(seconds / 60);
    const text = minutes === 0 ? `${seconds} s left` : `${minutes} min ${String(seconds % 60).padStart(2, '0')} s left`;
    return seconds <= 10 ? this.style.yellow(text) : text;
  }

  /** A prompt's message: the question, then `left` while the prompt is open. */
  message(text: string, left: string, status: Status): string {
    return status === 'done' ? this.style.bold(text) : `${this.style.bold(text)} ${this.style.dim('·')} ${left}`;
  }
}

/**
 * The message of an @inquirer/core prompt (a hook: call it on every render). With a
 * countdown, the time left follows the question and a timer redraws the prompt every second
 * until it closes: inquirer redraws a prompt when its state changes, and the time left is
 * state. Without one, the message is the theme's.
 */
export function useCountdownMessage(
  text: string,
  status: Status,
  theme: Theme,
  countdown: Countdown | undefined,
): string {
  const [left, setLeft] = useState(() => countdown?.left());
  useEffect(() => {
    if (countdown === undefined) return;
    const timer = setInterval(() => setLeft(countdown.left()), 1000);
    return () => clearInterval(timer);
  }, [countdown]);
  return countdown === undefined || left === undefined
    ? theme.style.message(text, status)
    : countdown.message(text, left, status);
}
