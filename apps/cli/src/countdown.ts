import type { TerminalStyle } from './terminal-style.js';

/** Which keys redraw a prompt without changing it. */
export type PromptShape = 'list' | 'text';

const NEUTRAL_KEYS: Record<PromptShape, readonly { sequence: string; name: string }[]> = {
  // Down then up: the highlighted choice moves and comes back (lists loop).
  list: [
    { sequence: '\u001B[B', name: 'down' },
    { sequence: '\u001B[A', name: 'up' },
  ],
  // A space then backspace: the text typed so far is unchanged.
  text: [
    { sequence: ' ', name: 'space' },
    { sequence: '\u007F', name: 'backspace' },
  ],
};

/** The inquirer theme of a prompt with a countdown. */
export interface CountdownTheme {
  style: { message: (text: string, status: string) => string };
}

/**
 * The "12 s left" of a question with a deadline, redrawn every second while the prompt is
 * open. Inquirer redraws a prompt only when a key changes its state, so each second the
 * countdown sends the prompt two keys that cancel out; the prompt's message style reads
 * the time left at every redraw.
 */
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

  /** An inquirer theme whose message ends with the time left. */
  theme(): CountdownTheme {
    return {
      style: {
        message: (text, status) => (status === 'done' ? this.style.bold(text) : `${this.style.bold(text)} ${this.style.dim('·')} ${this.left()}`),
      },
    };
  }

  /** Redraws the prompt reading `input` every second until `stop()` is called. */
  tick(input: NodeJS.ReadableStream, shape: PromptShape): { stop(): void } {
    const timer = setInterval(() => {
      for (const key of NEUTRAL_KEYS[shape]) input.emit('keypress', key.sequence, { ...key, ctrl: false, meta: false, shift: false });
    }, 1000);
    timer.unref();
    return { stop: () => clearInterval(timer) };
  }
}

/**
 * Runs one prompt with a countdown when there is a deadline: `ask` gets the theme to pass
 * to inquirer (undefined without a deadline).
 */
export async function withCountdown<T>(
  deadline: number | undefined,
  style: TerminalStyle,
  input: NodeJS.ReadableStream,
  shape: PromptShape,
  ask: (theme: CountdownTheme | undefined) => Promise<T>,
): Promise<T> {
  if (deadline === undefined) return ask(undefined);
  const countdown = new Countdown(deadline, style);
  const ticking = countdown.tick(input, shape);
  try {
    return await ask(countdown.theme());
  } finally {
    ticking.stop();
  }
}
