import type { StandardInput } from './analysis-context.js';
import type { ShellWord } from './shell-word.js';

/** Turns printf's common escapes into characters. */
function unescapePrintf(format: string): string {
  return format.replaceAll('\\n', '\n').replaceAll('\\t', '\t').replaceAll('\\\\', '\\');
}

/**
 * What a command writes to standard output, when that is known before it runs:
 * `echo` and `printf` of literal text, and `cat` passing its input through. Used to
 * follow `echo 'rm -rf /' | sh` and `cat <<EOF | sh`.
 */
export function staticOutput(
  name: string,
  args: readonly ShellWord[],
  stdin: StandardInput | undefined,
): string | undefined {
  if (!args.every((arg) => arg.exact)) return undefined;
  const texts = args.map((arg) => arg.text);
  switch (name) {
    case 'echo': {
      let start = 0;
      while (texts[start] === '-n' || texts[start] === '-e' || texts[start] === '-E') start += 1;
      return `${texts.slice(start).join(' ')}\n`;
    }
    case 'printf': {
      const [format, ...rest] = texts;
      return format !== undefined && rest.length === 0 && !format.includes('%') ? unescapePrintf(format) : undefined;
    }
    case 'cat':
      return texts.length === 0 || (texts.length === 1 && texts[0] === '-') ? stdin?.text : undefined;
    default:
      return undefined;
  }
}
