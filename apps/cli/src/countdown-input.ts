import {
  createPrompt,
  isBackspaceKey,
  isEnterKey,
  isTabKey,
  makeTheme,
  useKeypress,
  usePrefix,
  useState,
} from '@inquirer/core';
import { useCountdownMessage, type Countdown, type PromptContext } from './countdown.js';

/** What a {@link countdownInput} asks. */
export interface CountdownInputConfig {
  message: string;
  /** The answer when Enter is pressed on an empty line; Tab puts it on the line to edit. */
  default?: string | undefined;
  /** `true` accepts the text; a string refuses it and is shown under the prompt. */
  validate?: ((text: string) => true | string) | undefined;
  /** The deadline to count down in the message, redrawn every second. */
  countdown?: Countdown | undefined;
}

/**
 * A line of text, drawn like @inquirer/prompts' `input`: the default shows dimmed until
 * something is typed (Tab takes it to edit, Backspace on an empty line drops it); a text
 * the validation refuses stays on the line, with the reason under it. With a countdown the
 * message shows the time left, redrawn every second without touching what is typed.
 */
export const countdownInput: (config: CountdownInputConfig, context?: PromptContext) => Promise<string> = createPrompt(
  (config: CountdownInputConfig, done: (value: string) => void): [string, string] => {
    const theme = makeTheme();
    const [status, setStatus] = useState('idle');
    const prefix = usePrefix({ status, theme });
    const message = useCountdownMessage(config.message, status, theme, config.countdown);
    const [defaultValue, setDefaultValue] = useState(config.default ?? '');
    const [value, setValue] = useState('');
    const [error, setError] = useState<string | undefined>(undefined);

    useKeypress((key, readline) => {
      if (status !== 'idle') return;
      if (isEnterKey(key)) {
        const answer = value || defaultValue;
        const verdict = config.validate?.(answer) ?? true;
        if (verdict === true) {
          setValue(answer);
          setStatus('done');
          done(answer);
        } else {
          // Enter emptied the line: put the refused text back to be fixed rather than retyped.
          readline.write(value);
          setError(verdict);
        }
      } else if (isBackspaceKey(key) && value === '') {
        setDefaultValue('');
      } else if (isTabKey(key) && value === '') {
        setDefaultValue('');
        readline.clearLine(0);
        readline.write(defaultValue);
        setValue(defaultValue);
      } else {
        setValue(readline.line);
        setError(undefined);
      }
    });

    const shown = status === 'done' ? theme.style.answer(value) : value;
    const hint =
      defaultValue !== '' && status !== 'done' && value === '' ? ` ${theme.style.defaultAnswer(defaultValue)}` : '';
    return [`${prefix} ${message}${hint} ${shown}`, error === undefined ? '' : theme.style.error(error)];
  },
);
