import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Countdown } from './countdown.js';
import { createTerminalStyle } from './terminal-style.js';

const plain = createTerminalStyle(false);

describe('the countdown of a question with a deadline (issue 5)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('says the whole seconds left, with minutes past one minute, and never less than zero', () => {
    let now = 0;
    const countdown = new Countdown(65_000, plain, () => now);
    expect(countdown.left()).toBe('1 min 05 s left');
    now = 55_001;
    expect(countdown.left()).toBe('10 s left');
    now = 70_000;
    expect(countdown.left()).toBe('0 s left');
  });

  it('adds the time left to the prompt while it is open, and not once it is answered', () => {
    const theme = new Countdown(30_000, plain, () => 0).theme();
    expect(theme.style.message('Go ahead?', 'idle')).toBe('Go ahead? · 30 s left');
    expect(theme.style.message('Go ahead?', 'done')).toBe('Go ahead?');
  });

  it('redraws a list every second with keys that cancel out, until stopped', () => {
    const input = new PassThrough();
    const keys: string[] = [];
    input.on('keypress', (_sequence: string, key: { name: string }) => keys.push(key.name));
    const ticking = new Countdown(30_000, plain).tick(input, 'list');
    vi.advanceTimersByTime(2_000);
    expect(keys).toEqual(['down', 'up', 'down', 'up']);
    ticking.stop();
    vi.advanceTimersByTime(5_000);
    expect(keys).toHaveLength(4);
  });
});
