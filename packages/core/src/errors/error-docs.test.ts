import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '@interlock/sdk-types';

// Every `## ` heading of docs/errors.md is an error code; the page's introduction sits
// above the first one, so a heading that is not a code is a mistake this test catches.
const ERRORS_DOC = fileURLToPath(new URL('../../../../docs/errors.md', import.meta.url));

interface DocEntry {
  code: string;
  body: string;
}

function readEntries(): DocEntry[] {
  const text = readFileSync(ERRORS_DOC, 'utf8');
  const sections = text.split(/^## +/m).slice(1);
  return sections.map((section) => {
    const newline = section.indexOf('\n');
    const heading = newline === -1 ? section : section.slice(0, newline);
    return { code: heading.trim(), body: newline === -1 ? '' : section.slice(newline + 1).trim() };
  });
}

describe('docs/errors.md', () => {
  const entries = readEntries();
  const documented = entries.map((entry) => entry.code);
  const codes: readonly string[] = ErrorCode.options;

  it('has a `## CODE` entry for every error code', () => {
    const missing = codes.filter((code) => !documented.includes(code));
    expect(missing, `add a "## CODE" entry to docs/errors.md for: ${missing.join(', ')}`).toEqual([]);
  });

  it('names no code that does not exist', () => {
    const unknown = documented.filter((code) => !codes.includes(code));
    expect(
      unknown,
      `docs/errors.md has entries for codes that ErrorCode does not declare: ${unknown.join(', ')}`,
    ).toEqual([]);
  });

  it('documents each code once, with text under its heading', () => {
    const duplicated = documented.filter((code, index) => documented.indexOf(code) !== index);
    expect(duplicated, 'duplicated entries').toEqual([]);
    const empty = entries.filter((entry) => entry.body === '').map((entry) => entry.code);
    expect(empty, 'entries with no text').toEqual([]);
  });
});
