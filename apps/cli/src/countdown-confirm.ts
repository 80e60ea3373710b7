import { createPrompt, isEnterKey, isTabKey, makeTheme, useKeypress, usePrefix, useState } from '@inquirer/core';
import { useCountdownMessage, type Countdown, type PromptContext } from './countdown.js';

/** What a {@link countdownConfirm} asks. */
export interface CountdownConfirmConfig {
  message: string;
  /** The answer when Enter is pressed without a y or an n. */
  default: boolean;
  /** The deadline to count down in the message, redrawn every second. */
  countdown?: Countdown | undefined;
}

/**
 * A yes/no question, drawn like @inquirer/prompts' `confirm`: a line starting with y or n
 * answers, anything else takes the default, Tab flips the answer on the line. With a
 * countdown the message shows the time left, redrawn every second without touching what is
 * typed.
 */
export const countdownConfirm: (config: CountdownConfirmConfig, context?: PromptContext) => Promise<boolean> =
  createPrompt((config: CountdownConfirmConfig, done: (value: boolean) => void): string => {
    const theme = makeTheme();
    const [status, setStatus] = useState('idle');
    const prefix = usePrefix({ status, theme });
    const message = useCountdownMessage(config.message, status, theme, config.countdown);
    const [value, setValue] = useState('');

    useKeypress((key, readline) => {
      if (status !== 'idle') return;
      if (isEnterKey(key)) {
        const answer = readAnswer(value, config.default);
        setValue(yesOrNo(answer));
        setStatus('done');
        done(answer);
      } else if (isTabKey(key)) {
        const flipped = yesOrNo(!readAnswer(value, config.default));
        readline.clearLine(0);
        readline.write(flipped);
        setValue(flipped);
      } else {
        setValue(readline.line);
      }
    });

    if (status === 'done') return `${prefix} ${message} ${theme.style.answer(value)}`;
    return `${prefix} ${message} ${theme.style.defaultAnswer(config.default ? 'Y/n' : 'y/N')} ${value}`;
  });

function readAnswer(text: string, fallback: boolean): boolean {
  if (/^y/i.test(text)) return true;
  if (/^n/i.test(text)) return false;
  return fallback;
}

function yesOrNo(answer: boolean): string {
  return answer ? 'Yes' : 'No';
}
