import { z } from 'zod';
import type { ShellClassifierPort } from '../policy/decide-approval.js';
import { defineTool, type Tool } from '../tools/define-tool.js';

const NOTE_PARAMETERS = z.object({ text: z.string() });

/**
 * A `note` tool for tests: a `write` tool of MEDIUM risk (so a person is asked, and may
 * remember the answer) that returns `noted <text>` and records each text it was run with in
 * `notes`, the witness of what really ran.
 *
 * @param notes - where each run's text goes (a fresh list by default)
 * @example
 * const notes: string[] = [];
 * const interlock = await createInterlock({ tools: [noteTool(notes)], … });
 * // … after the run:
 * expect(notes).toEqual(['hello']);
 */
export function noteTool(notes: string[] = []): Tool<typeof NOTE_PARAMETERS> {
  return defineTool({
    name: 'note',
    description: 'Writes a note',
    category: 'write',
    riskLevel: 'MEDIUM',
    parameters: NOTE_PARAMETERS,
    execute: async ({ text }) => {
      notes.push(text);
      return `noted ${text}`;
    },
  });
}

/**
 * A shell classifier that calls every command safe, for tests whose subject is not the shell
 * policy: pass it as `shellClassifier` to `createInterlock`, so that no command of a test's
 * script depends on the machine's programs. Never in production: it approves `rm -rf /`.
 *
 * @example
 * const interlock = await createInterlock({ shellClassifier: safeShellClassifier(), … });
 */
export function safeShellClassifier(): ShellClassifierPort {
  return { classify: () => ({ verdict: 'safe', rule: 'shell:safe', reasons: [] }) };
}
