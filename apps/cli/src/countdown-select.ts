import {
  createPrompt,
  isBackspaceKey,
  isDownKey,
  isEnterKey,
  isNumberKey,
  isUpKey,
  makeTheme,
  useEffect,
  useKeypress,
  usePagination,
  usePrefix,
  useRef,
  useState,
} from '@inquirer/core';
import figures from '@inquirer/figures';
import { useCountdownMessage, type Countdown, type PromptContext } from './countdown.js';

/** One choice of a {@link countdownSelect}. */
export interface SelectChoice<Value> {
  value: Value;
  /** What the list shows, and the answer once picked. */
  name: string;
}

/** What a {@link countdownSelect} asks. */
export interface CountdownSelectConfig<Value> {
  message: string;
  choices: readonly SelectChoice<Value>[];
  /** The value of the choice highlighted first (the first choice when absent or not found). */
  default?: Value | undefined;
  /** The deadline to count down in the message, redrawn every second. */
  countdown?: Countdown | undefined;
}

const PAGE_SIZE = 7;
/** Typed digits or letters pick a choice, and are forgotten after this pause. */
const TYPING_PAUSE_MILLISECONDS = 700;
/** A list shows no cursor: the highlighted choice is where the person is. */
const HIDE_CURSOR = '\u001B[?25l';

/**
 * A list to pick one choice from, drawn like @inquirer/prompts' `select`: ↑/↓ move the
 * highlight (round the ends), a number or the start of a name jumps to a choice, Enter
 * picks the highlighted one. With a countdown the message shows the time left, redrawn
 * every second without touching the highlight.
 */
export const countdownSelect: <Value>(config: CountdownSelectConfig<Value>, context?: PromptContext) => Promise<Value> =
  createPrompt(<Value>(config: CountdownSelectConfig<Value>, done: (value: Value) => void): string => {
    const { choices } = config;
    const theme = makeTheme();
    const [status, setStatus] = useState('idle');
    const prefix = usePrefix({ status, theme });
    const message = useCountdownMessage(config.message, status, theme, config.countdown);
    const [active, setActive] = useState(() =>
      Math.max(
        0,
        choices.findIndex((choice) => choice.value === config.default),
      ),
    );
    const chosen = choices[active];
    if (chosen === undefined) throw new Error('a list prompt needs at least one choice');
    const forgetTyping = useRef<NodeJS.Timeout | undefined>(undefined);
    useEffect(() => () => clearTimeout(forgetTyping.current), []);

    useKeypress((key, readline) => {
      clearTimeout(forgetTyping.current);
      if (isEnterKey(key)) {
        setStatus('done');
        done(chosen.value);
      } else if (isUpKey(key) || isDownKey(key)) {
        readline.clearLine(0);
        setActive((active + (isUpKey(key) ? -1 : 1) + choices.length) % choices.length);
      } else if (isBackspaceKey(key)) {
        readline.clearLine(0);
      } else {
        // A number picks the choice at that place; anything else, the first name it starts.
        const typed = readline.line.toLowerCase();
        const byNumber = isNumberKey(key) && !Number.isNaN(Number(typed));
        const index = byNumber
          ? Number(typed) - 1
          : choices.findIndex((choice) => choice.name.toLowerCase().startsWith(typed));
        if (choices[index] !== undefined) setActive(index);
        forgetTyping.current = setTimeout(() => readline.clearLine(0), TYPING_PAUSE_MILLISECONDS);
      }
    });

    const page = usePagination({
      items: choices,
      active,
      renderItem: ({ item, isActive }) =>
        isActive ? theme.style.highlight(`${figures.pointer} ${item.name}`) : `  ${item.name}`,
      pageSize: PAGE_SIZE,
      loop: true,
    });
    if (status === 'done') return `${prefix} ${message} ${theme.style.answer(chosen.name)}`;
    return `${prefix} ${message}\n${page}\n \n${theme.style.help('↑↓ navigate • ⏎ select')}${HIDE_CURSOR}`;
  });
