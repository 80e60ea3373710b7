import { PassThrough } from 'node:stream';
import { setImmediate as settle } from 'node:timers/promises';
import { stripVTControlCharacters } from 'node:util';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Countdown } from './countdown.js';
import { countdownConfirm } from './countdown-confirm.js';
import { countdownInput } from './countdown-input.js';
import { countdownSelect } from './countdown-select.js';
import { createTerminalStyle } from './terminal-style.js';

const plain = createTerminalStyle(false);

const KEYS = { enter: '\r', down: '\u001B[B', tab: '\t' } as const;

/**
 * A terminal for one prompt: what is typed goes to `input`, the prompt draws on `output`.
 * It records every keypress the input delivers, so a test sees any key it did not type.
 */
class FakeTerminal {
  readonly input = new PassThrough();
  readonly output = new PassThrough();
  readonly keypresses: string[] = [];
  private readonly draws: string[] = [];

  constructor() {
    this.output.on('data', (chunk: Buffer) => {
      const text = stripVTControlCharacters(chunk.toString());
      if (text.trim() !== '') this.draws.push(text);
    });
    this.input.on('keypress', (_sequence: string, key: { name?: string; sequence: string }) =>
      this.keypresses.push(key.name ?? key.sequence),
    );
  }

  get context() {
    return { input: this.input, output: this.output };
  }

  /** The prompt as last drawn. */
  screen(): string {
    return this.draws.at(-1) ?? '';
  }

  async type(...keys: string[]): Promise<void> {
    for (const key of keys) {
      this.input.write(key);
      await settle();
    }
  }

  /** Moves the clock on by whole seconds, letting the prompt redraw after each. */
  async wait(seconds: number): Promise<void> {
    for (let second = 0; second < seconds; second++) {
      vi.advanceTimersByTime(1000);
      await settle();
    }
  }
}

beforeEach(() => {
  // setImmediate stays real: inquirer settles an answer with it, and the tests wait on it.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'], now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the countdown of a question with a deadline (issue 5)', () => {
  it('says the whole seconds left, with minutes past one minute, and never less than zero', () => {
    let now = 0;
    const countdown = new Countdown(65_000, plain, () => now);
    expect(countdown.left()).toBe('1 min 05 s left');
    now = 55_001;
    expect(countdown.left()).toBe('10 s left');
    now = 70_000;
    expect(countdown.left()).toBe('0 s left');
  });

  it('turns yellow in the last 10 seconds', () => {
    const coloured = createTerminalStyle(true);
    expect(new Countdown(11_000, coloured, () => 0).left()).toBe('11 s left');
    expect(new Countdown(10_000, coloured, () => 0).left()).toBe(coloured.yellow('10 s left'));
  });

  it('adds the time left to the message while the prompt is open, and not once it is answered', () => {
    const countdown = new Countdown(30_000, plain, () => 0);
    expect(countdown.message('Go ahead?', '30 s left', 'idle')).toBe('Go ahead? · 30 s left');
    expect(countdown.message('Go ahead?', '30 s left', 'done')).toBe('Go ahead?');
  });
});

describe('a list prompt with a countdown (issue 15)', () => {
  const choices = [
    { value: 'yes', name: 'yes' },
    { value: 'no', name: 'no' },
    { value: 'later', name: 'ask me later' },
  ];

  it('counts down in its message every second without any key being pressed', async () => {
    const terminal = new FakeTerminal();
    const answer = countdownSelect(
      { message: 'Go ahead?', choices, countdown: new Countdown(65_000, plain) },
      terminal.context,
    );
    await settle();
    expect(terminal.screen()).toContain('? Go ahead? · 1 min 05 s left\n❯ yes\n  no\n  ask me later');
    await terminal.wait(1);
    expect(terminal.screen()).toContain('? Go ahead? · 1 min 04 s left\n❯ yes');
    await terminal.wait(5);
    expect(terminal.screen()).toContain('? Go ahead? · 59 s left\n❯ yes');
    expect(terminal.keypresses).toEqual([]);
    await terminal.type(KEYS.enter);
    await expect(answer).resolves.toBe('yes');
  });

  it('picks the highlighted choice with Enter while the countdown ticks, and only the keys typed reach the input', async () => {
    const terminal = new FakeTerminal();
    const answer = countdownSelect(
      { message: 'Go ahead?', choices, countdown: new Countdown(30_000, plain) },
      terminal.context,
    );
    await terminal.type(KEYS.down);
    await terminal.wait(3);
    expect(terminal.screen()).toContain('? Go ahead? · 27 s left\n  yes\n❯ no');
    await terminal.type(KEYS.enter);
    await expect(answer).resolves.toBe('no');
    expect(terminal.screen()).toContain('✔ Go ahead? no');
    expect(terminal.screen()).not.toContain('left');
    expect(terminal.keypresses).toEqual(['down', 'return']);
  });

  it('stops its timer when it is answered, and when the engine aborts it', async () => {
    const answered = new FakeTerminal();
    const first = countdownSelect(
      { message: 'Go ahead?', choices, countdown: new Countdown(30_000, plain) },
      answered.context,
    );
    await settle();
    expect(vi.getTimerCount()).toBe(1);
    await answered.type(KEYS.enter);
    await first;
    expect(vi.getTimerCount()).toBe(0);

    const aborted = new FakeTerminal();
    const controller = new AbortController();
    const second = countdownSelect(
      { message: 'Go ahead?', choices, countdown: new Countdown(30_000, plain) },
      { ...aborted.context, signal: controller.signal },
    );
    await settle();
    controller.abort();
    await expect(second).rejects.toMatchObject({ name: 'AbortPromptError' });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('runs no timer and shows no time without a countdown, and starts on the default choice', async () => {
    const terminal = new FakeTerminal();
    const answer = countdownSelect({ message: 'Go ahead?', choices, default: 'later' }, terminal.context);
    await settle();
    expect(vi.getTimerCount()).toBe(0);
    expect(terminal.screen()).toContain('? Go ahead?\n  yes\n  no\n❯ ask me later\n\n↑↓ navigate • ⏎ select');
    await terminal.type(KEYS.enter);
    await expect(answer).resolves.toBe('later');
  });

  it('jumps to a choice by its number or by the start of its name', async () => {
    const terminal = new FakeTerminal();
    const answer = countdownSelect(
      { message: 'Go ahead?', choices, countdown: new Countdown(30_000, plain) },
      terminal.context,
    );
    await terminal.type('2');
    expect(terminal.screen()).toContain('❯ no');
    // What was typed is forgotten after a pause, so the next letter starts a new name.
    await terminal.wait(1);
    await terminal.type('a');
    expect(terminal.screen()).toContain('❯ ask me later');
    await terminal.type(KEYS.enter);
    await expect(answer).resolves.toBe('later');
  });
});

describe('a text prompt with a countdown (issue 15)', () => {
  it('counts down without touching the text being typed', async () => {
    const terminal = new FakeTerminal();
    const answer = countdownInput({ message: 'Your name?', countdown: new Countdown(12_000, plain) }, terminal.context);
    await terminal.type('A', 'd', 'a');
    expect(terminal.screen()).toContain('? Your name? · 12 s left Ada');
    await terminal.wait(2);
    expect(terminal.screen()).toContain('? Your name? · 10 s left Ada');
    expect(terminal.keypresses).toEqual(['a', 'd', 'a']);
    await terminal.type(KEYS.enter);
    await expect(answer).resolves.toBe('Ada');
    expect(terminal.screen()).toContain('✔ Your name? Ada');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('keeps a refused text on the line with the reason under it, and takes it once fixed', async () => {
    const terminal = new FakeTerminal();
    const validate = (text: string) => (text.startsWith('{') ? true : 'enter valid JSON');
    const answer = countdownInput(
      { message: 'Arguments?', validate, countdown: new Countdown(30_000, plain) },
      terminal.context,
    );
    await terminal.type('1', KEYS.enter);
    expect(terminal.screen()).toContain('? Arguments? · 30 s left 1\n> enter valid JSON');
    await terminal.wait(1);
    expect(terminal.screen()).toContain('? Arguments? · 29 s left 1\n> enter valid JSON');
    await terminal.type('\u007F', '{', '}', KEYS.enter);
    await expect(answer).resolves.toBe('{}');
  });

  it('answers the default on an empty line, and Tab puts the default on the line to edit', async () => {
    const first = new FakeTerminal();
    const taken = countdownInput(
      { message: 'City?', default: 'Kunming', countdown: new Countdown(30_000, plain) },
      first.context,
    );
    await settle();
    expect(first.screen()).toContain('? City? · 30 s left (Kunming)');
    await first.type(KEYS.enter);
    await expect(taken).resolves.toBe('Kunming');

    const second = new FakeTerminal();
    const edited = countdownInput({ message: 'City?', default: 'Kunming' }, second.context);
    await second.type(KEYS.tab, '!', KEYS.enter);
    await expect(edited).resolves.toBe('Kunming!');
  });
});

describe('a yes/no prompt with a countdown (issue 15)', () => {
  it('counts down, reads y or n, and takes the default otherwise', async () => {
    const terminal = new FakeTerminal();
    const answer = countdownConfirm(
      { message: 'Deploy?', default: true, countdown: new Countdown(30_000, plain) },
      terminal.context,
    );
    await terminal.type('n');
    await terminal.wait(1);
    expect(terminal.screen()).toContain('? Deploy? · 29 s left (Y/n) n');
    await terminal.type(KEYS.enter);
    await expect(answer).resolves.toBe(false);
    expect(terminal.screen()).toContain('✔ Deploy? No');

    const other = new FakeTerminal();
    const fallback = countdownConfirm({ message: 'Deploy?', default: false }, other.context);
    await other.type(KEYS.enter);
    await expect(fallback).resolves.toBe(false);
  });
});
