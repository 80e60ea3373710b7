/** Text styles for one output stream; each returns the text unchanged when colour is off. */
export interface TerminalStyle {
  readonly enabled: boolean;
  // Functions, not methods: a style is passed around on its own (`const paint = style.green`).
  readonly dim: (text: string) => string;
  readonly bold: (text: string) => string;
  readonly red: (text: string) => string;
  readonly green: (text: string) => string;
  readonly yellow: (text: string) => string;
  readonly cyan: (text: string) => string;
  readonly magenta: (text: string) => string;
}

const CODES = {
  dim: [2, 22],
  bold: [1, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
  magenta: [35, 39],
} as const;

/**
 * True when text written to `stream` should be coloured: it is a terminal and `NO_COLOR`
 * is unset or empty (https://no-color.org).
 */
export function colourWanted(stream: { isTTY?: boolean }, environment: NodeJS.ProcessEnv = process.env): boolean {
  const noColour = environment['NO_COLOR'];
  return stream.isTTY === true && (noColour === undefined || noColour === '');
}

/** Creates the styles for a stream: plain ANSI codes when `enabled`, identity otherwise. */
export function createTerminalStyle(enabled: boolean): TerminalStyle {
  const paint =
    (name: keyof typeof CODES) =>
    (text: string): string => {
      if (!enabled) return text;
      const [open, close] = CODES[name];
      return `\u001B[${open}m${text}\u001B[${close}m`;
    };
  return {
    enabled,
    dim: paint('dim'),
    bold: paint('bold'),
    red: paint('red'),
    green: paint('green'),
    yellow: paint('yellow'),
    cyan: paint('cyan'),
    magenta: paint('magenta'),
  };
}
