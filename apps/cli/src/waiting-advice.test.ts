import { describe, expect, it } from 'vitest';
import { parseStoreOption } from './store-option.js';
import { createTerminalStyle } from './terminal-style.js';
import { waitingAdvice } from './waiting-advice.js';

const style = createTerminalStyle(false);
const store = parseStoreOption('sqlite:/tmp/interlock-advice.db', 'run', {});

describe('waitingAdvice (issue 28)', () => {
  it('suggests only resume for a run stopped between steps, with nothing to answer', () => {
    const advice = waitingAdvice({ threadId: 't-1', pending: [], pendingIds: [], store, style });
    expect(advice).toContain("interlock resume t-1 --store 'sqlite:/tmp/interlock-advice.db'");
    expect(advice).toContain('Nothing waits for an answer');
    expect(advice).not.toContain('interlock respond');
    expect(advice).not.toContain('<interactionId>');
  });

  it('names the interaction to answer when one waits', () => {
    const advice = waitingAdvice({ threadId: 't-1', pending: [], pendingIds: ['i-9'], store, style });
    expect(advice).toContain('interlock respond i-9');
    expect(advice).toContain('interlock resume t-1');
  });
});
