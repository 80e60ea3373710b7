import { describe, expect, it } from 'vitest';
import { main } from './api-tour.js';

describe('examples/api-tour.ts (the README example)', () => {
  it('waits for a person, then completes with their answer', async () => {
    const lines: unknown[][] = [];
    const [waiting, completed] = await main((...values) => lines.push(values));
    expect(waiting).toMatchObject({ status: 'waiting', pendingInteractionIds: [expect.any(String)] });
    expect(completed).toMatchObject({ status: 'completed', variables: { task: 'Add --json', approved: true } });
    expect(lines[0]).toEqual(['asked:', expect.stringContaining('Go ahead with this plan?')]);
  });
});
