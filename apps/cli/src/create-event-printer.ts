import { ReadableEventPrinter, type EventPrinter } from './event-printer.js';
import { JsonEventPrinter } from './json-event-printer.js';
import { colourWanted, createTerminalStyle } from './terminal-style.js';

/** The printer of a run on standard output: JSON lines under `--json`, readable (coloured in a terminal) text otherwise. */
export function createEventPrinter(json: boolean): EventPrinter {
  if (json) return new JsonEventPrinter(process.stdout);
  return new ReadableEventPrinter(
    process.stdout,
    createTerminalStyle(colourWanted(process.stdout)),
    // isTTY is undefined, not false, on a pipe (Node's types say boolean).
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-boolean-literal-compare -- see above
    process.stdout.isTTY === true,
  );
}
