import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ApprovalDecision } from '../policy/decide-approval.js';
import { admit, ruling } from './admission.js';
import { defineTool } from './define-tool.js';
import { newTurnCall } from './turn-state.js';

const search = defineTool({
  name: 'search',
  description: 'Searches the notes',
  category: 'read',
  riskLevel: 'LOW',
  parameters: z.object({
    query: z.string(),
    limit: z.coerce.number().int().default(10),
    filter: z.object({ tag: z.string() }).optional(),
  }),
  execute: async () => [],
});

const call = (name: string, args: Record<string, unknown>, argumentsError?: string) =>
  newTurnCall({ id: 'call-1', name, arguments: args, ...(argumentsError === undefined ? {} : { argumentsError }) });

describe('admit', () => {
  it('refuses a tool the node does not offer as NOT_FOUND, names the ones it does, and audits it (F14)', () => {
    expect(admit(call('delete_all', {}), undefined, ['search', 'note'])).toEqual({
      kind: 'refused',
      status: 'NOT_FOUND',
      message: 'No tool named "delete_all" is available here. Available tools: search, note.',
      audited: { rule: 'tool:not-offered', reason: "not among this node's tools (search, note)" },
    });
  });

  it('refuses a registered tool this node does not offer, even with good arguments', () => {
    const admission = admit(call('search', { query: 'x' }), search, ['note']);
    expect(admission).toMatchObject({ kind: 'refused', status: 'NOT_FOUND', audited: { rule: 'tool:not-offered' } });
  });

  it('says "none" when the node offers no tools', () => {
    expect(admit(call('search', {}), search, [])).toMatchObject({
      message: expect.stringContaining('Available tools: none.'),
    });
  });

  it('lets an offered but unregistered tool through unchanged: the rules report it NOT_FOUND', () => {
    expect(admit(call('ghost', { a: 1 }), undefined, ['ghost'])).toEqual({
      kind: 'admitted',
      finalArguments: { a: 1 },
    });
  });

  it('refuses arguments that were not JSON as an ERROR the model can fix, without an audit entry (F19)', () => {
    const admission = admit(call('search', {}, 'truncated JSON'), search, ['search']);
    expect(admission).toEqual({
      kind: 'refused',
      status: 'ERROR',
      message:
        'The arguments were not a usable JSON object (truncated JSON). Call search again with arguments that match its schema.',
    });
  });

  it('refuses arguments that do not match the schema with an ERROR naming the field (F19)', () => {
    const admission = admit(call('search', { query: 42 }), search, ['search']);
    expect(admission).toMatchObject({
      kind: 'refused',
      status: 'ERROR',
      message: expect.stringMatching(
        /^The arguments do not match the schema of search: query: .*Fix them and call again\.$/,
      ),
    });
    expect(admission).not.toHaveProperty('audited');
  });

  it('names a nested field by its path', () => {
    const admission = admit(call('search', { query: 'x', filter: { tag: 7 } }), search, ['search']);
    expect(admission).toMatchObject({ kind: 'refused', message: expect.stringContaining('filter.tag: ') });
  });

  it("runs the schema's parse: defaults filled in, strings coerced", () => {
    expect(admit(call('search', { query: 'x' }), search, ['search'])).toEqual({
      kind: 'admitted',
      finalArguments: { query: 'x', limit: 10 },
    });
    expect(admit(call('search', { query: 'x', limit: '3' }), search, ['search'])).toEqual({
      kind: 'admitted',
      finalArguments: { query: 'x', limit: 3 },
    });
  });
});

describe('ruling (what a rule decided does to a call)', () => {
  const decided = call('search', { query: 'x' });
  const decision: Pick<ApprovalDecision, 'outcome' | 'rule' | 'reason' | 'notFound'> = {
    outcome: 'deny',
    rule: 'deny:rule[0]',
    reason: 'matches a deny rule',
    notFound: false,
  };

  it('lets an allowed call run', () => {
    expect(ruling(decided, { ...decision, outcome: 'allow' }, ['search'])).toEqual({ runs: true });
  });

  it('reports a tool nobody registered as NOT_FOUND, naming the registered tools (F14)', () => {
    expect(
      ruling(call('ghost', {}), { ...decision, rule: 'tool:not-found', notFound: true }, ['search', 'note']),
    ).toEqual({
      runs: false,
      status: 'NOT_FOUND',
      message: 'No tool named "ghost". Available tools: search, note.',
    });
    expect(ruling(call('ghost', {}), { ...decision, notFound: true }, [])).toMatchObject({
      message: expect.stringContaining('Available tools: none.'),
    });
  });

  it('rejects a denied call and tells the model which rule denied it and why (F19)', () => {
    expect(ruling(decided, decision, ['search'])).toEqual({
      runs: false,
      status: 'EXECUTION_REJECTED',
      message: 'denied by policy (deny:rule[0]): matches a deny rule',
    });
  });
});
