import { readFileSync } from 'node:fs';
import { ANSWER_OUTCOMES, type AnswerOutcome } from '@interlock/core';
import { describe, expect, it } from 'vitest';
import { ExitCode } from './exit-code.js';
import { exitOf, RESPOND_EXITS } from './respond-outcome.js';

/*
 * `interlock respond`'s one table from what an answer came to (core's AnswerOutcome, issue
 * 39) to its exit code, checked against every outcome and docs/cli.md's "What an answer came to".
 */

/** docs/cli.md's table: each outcome it names, with the exit cells of its rows. */
function documentedExits(): Map<string, string[]> {
  const page = readFileSync(new URL('../../../docs/cli.md', import.meta.url), 'utf8');
  const section = page.slice(page.indexOf('### What an answer came to'));
  const table = section.slice(0, section.indexOf('\n\n', section.indexOf('| outcome')));
  const exits = new Map<string, string[]>();
  for (const line of table.split('\n').filter((row) => row.startsWith('| `'))) {
    const cells = line.split('|').slice(1, -1);
    const [outcomes = ''] = cells;
    const exit = (cells[3] ?? '').trim();
    for (const [, name = ''] of outcomes.matchAll(/`([a-z-]+)`/g)) exits.set(name, [...(exits.get(name) ?? []), exit]);
  }
  return exits;
}

describe('interlock respond: an exit code per outcome of an answer (issue 39)', () => {
  it.each(ANSWER_OUTCOMES)('%s: docs/cli.md gives the exit code of the table', (outcome) => {
    const documented = documentedExits().get(outcome);
    expect(documented, `docs/cli.md has no row for ${outcome}`).toBeDefined();
    const exit = RESPOND_EXITS[outcome];
    for (const cell of documented ?? [])
      expect(cell).toBe(exit === 'followed' ? '0, or 3 if it asks again' : String(exit));
  });

  it('ends at once for every outcome but a thread followed here, which ends as the thread does', () => {
    expect(ANSWER_OUTCOMES.filter((outcome) => RESPOND_EXITS[outcome] === 'followed')).toEqual(['continued']);
    expect(exitOf('unknown')).toBe(ExitCode.outcomeUnknown);
    expect(exitOf('already-answered')).toBe(ExitCode.alreadyAnswered);
  });
});

describe('interlock mcp serve: the outcomes docs/mcp.md lists (issue 39)', () => {
  /** The rows of docs/mcp.md's table: the outcomes each names, and what the person who answered is told. */
  function mcpRows(): { outcomes: string[]; told: string }[] {
    const page = readFileSync(new URL('../../../docs/mcp.md', import.meta.url), 'utf8');
    const section = page.slice(page.indexOf('### What an answer came to'));
    const table = section.slice(0, section.indexOf('\n\n', section.indexOf('| outcome')));
    return table
      .split('\n')
      .filter((row) => row.startsWith('| `'))
      .map((row) => {
        const cells = row.split('|').slice(1, -1);
        return {
          outcomes: [...(cells[0] ?? '').matchAll(/`([a-z-]+)`/g)].map((match) => match[1] ?? ''),
          told: cells[3] ?? '',
        };
      });
  }

  it('names an outcome of an answer in every row, and tells the person the exit code of its row here', () => {
    const rows = mcpRows();
    expect(rows.length).toBeGreaterThan(0);
    for (const { outcomes, told } of rows) {
      expect(outcomes.length).toBeGreaterThan(0);
      for (const outcome of outcomes) {
        expect(ANSWER_OUTCOMES).toContain(outcome);
        const exit = RESPOND_EXITS[outcome as AnswerOutcome];
        if (exit !== 'followed' && exit !== ExitCode.completed) expect(told).toContain(`exit ${exit}`);
      }
    }
  });
});
