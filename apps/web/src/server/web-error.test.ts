import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { WEB_ERROR_CODES } from './web-error.js';

/** docs/web.md's table of error codes, read from the page. */
function documentedCodes(): Set<string> {
  const page = readFileSync(new URL('../../../../docs/web.md', import.meta.url), 'utf8');
  const table = page.slice(page.indexOf('## Error codes'));
  return new Set([...table.matchAll(/`([A-Z_]+)`/g)].map((match) => match[1] ?? ''));
}

describe('the web API error codes (issue 28)', () => {
  it('lists every code the server can answer with in docs/web.md, with its status', () => {
    const documented = documentedCodes();
    expect(WEB_ERROR_CODES.filter((code) => !documented.has(code))).toEqual([]);
  });
});
