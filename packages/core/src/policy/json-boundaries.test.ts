import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { linearWorkflow } from '../__fixtures__/workflows.js';
import { createInterlock, defineTool, InterlockError, type Interlock } from '../index.js';
import { scriptedHandler, scriptedModel } from '../testing/index.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { resolveApprovalOptions } from './approval-options.js';
import { decideApproval } from './decide-approval.js';

/*
 * Issue 24, item 8: values that are not JSON are refused where they enter through the JS
 * API — explain(), the pipeline function itself, a tool's own schema that transforms
 * arguments, an onToolApprove callback's params, an edit given to respond() — never
 * decided, remembered or hashed as if they were another value (NaN as null, a Map as {}).
 */
const opened: Interlock[] = [];
afterEach(async () => {
  for (const interlock of opened.splice(0)) await interlock.close();
});

class Price {
  constructor(readonly cents: number) {}
}
const NOT_JSON: [string, unknown][] = [
  ['NaN', Number.NaN],
  ['-Infinity', Number.NEGATIVE_INFINITY],
  ['-0', -0],
  ['undefined', undefined],
  ['a Map', new Map([['k', 'v']])],
  ['a Set', new Set(['a'])],
  ['a Date', new Date(0)],
  ['a class instance', new Price(1)],
  ['a bigint', 1n],
];

const ran: unknown[] = [];
const anything = (riskLevel: 'LOW' | 'MEDIUM' | 'HIGH') =>
  defineTool({
    name: `anything_${riskLevel.toLowerCase()}`,
    description: 'Takes any value',
    category: 'write',
    riskLevel,
    parameters: z.object({ value: z.unknown() }),
    execute: async ({ value }) => {
      ran.push(value);
      return 'done';
    },
  });

describe('non-JSON values through the JS API (issue 24)', () => {
  it.each(NOT_JSON)('explain() refuses %s for a tool of every risk, LOW included (F42)', async (_name, value) => {
    const interlock = await createInterlock({ tools: [anything('LOW'), anything('MEDIUM'), anything('HIGH')] });
    opened.push(interlock);
    for (const toolName of ['anything_low', 'anything_medium', 'anything_high']) {
      let thrown: unknown;
      try {
        interlock.explain({ toolName, arguments: { value } });
      } catch (error) {
        thrown = error;
      }
      expect(InterlockError.is(thrown) && thrown.code).toBe('TOOL_ARGUMENTS_INVALID');
    }
  });

  it('decideApproval refuses what is not JSON before any rule looks at it (F24)', () => {
    const context = {
      tools: new ToolRegistry([anything('LOW')]),
      options: resolveApprovalOptions({ allowRules: ['args.value == null'] }),
      autoApprovedTools: [],
      shell: { classify: () => ({ verdict: 'safe' as const, rule: 'shell:safe', reasons: [] }) },
      memory: { has: () => false },
      scope: { channel: 'cli' },
      now: 0,
    };
    expect(() => decideApproval({ toolName: 'anything_low', arguments: { value: Number.NaN } }, context)).toThrow(
      /not plain JSON: NaN/,
    );
    expect(() => decideApproval({ toolName: 'anything_low', arguments: { value: new Map() } }, context)).toThrow(/Map/);
  });

  it.each([
    ['a Date', z.object({ when: z.string().transform((text) => new Date(text)) }), { when: '2030-01-01' }],
    ['NaN', z.object({ amount: z.string().transform(Number) }), { amount: 'lots' }],
    ['undefined', z.object({ note: z.string().transform(() => undefined) }), { note: 'x' }],
    [
      'a Map',
      z.object({ tags: z.array(z.string()).transform((tags) => new Map(tags.map((t) => [t, t]))) }),
      { tags: ['a'] },
    ],
  ])(
    'refuses a call whose tool schema turns its arguments into %s: the model is told, the thread goes on, nothing runs (F11, F19)',
    async (_name, parameters, args) => {
      ran.length = 0;
      const tool = defineTool({
        name: 'transforming',
        description: 'Its schema transforms',
        category: 'write',
        riskLevel: 'MEDIUM',
        parameters,
        execute: async (value) => {
          ran.push(value);
          return 'done';
        },
      });
      const model = scriptedModel([
        { text: '', toolCalls: [{ id: 'c1', name: 'transforming', arguments: args }] },
        'Gave up.',
      ]);
      const interlock = await createInterlock({
        tools: [tool],
        models: { default: model },
        handlers: { cli: scriptedHandler([{ input: { approved: true } }]) },
      });
      opened.push(interlock);
      const workflow = interlock.registerWorkflow(
        linearWorkflow([{ id: 'agent', type: 'LLM', config: { prompt: 'Go', tools: ['transforming'] } }], {
          id: 'transforming-flow',
        }),
      );
      expect(await (await interlock.start(workflow, { channel: 'cli' })).done()).toMatchObject({
        status: 'completed',
      });
      expect(ran).toEqual([]);
      const toolMessage = model.requests[1]?.messages.find((message) => message.role === 'tool');
      expect(toolMessage?.content).toMatch(/not JSON/);
    },
  );

  it.each(NOT_JSON.filter(([name]) => name !== 'undefined'))(
    'never runs a call with %s from onToolApprove params or an edit given to respond() (F19, F26)',
    async (_name, value) => {
      ran.length = 0;
      const model = () =>
        scriptedModel([
          { text: '', toolCalls: [{ id: 'c1', name: 'anything_medium', arguments: { value: null } }] },
          'Ok.',
        ]);
      const workflow = linearWorkflow(
        [{ id: 'agent', type: 'LLM', config: { prompt: 'Go', tools: ['anything_medium'] } }],
        { id: 'edit-flow' },
      );
      const byCallback = await createInterlock({
        tools: [anything('MEDIUM')],
        models: { default: model() },
        approval: { onToolApprove: () => ({ approved: true, params: { value } }) },
      });
      opened.push(byCallback);
      await (await byCallback.start(byCallback.registerWorkflow(workflow), { channel: 'cli' })).done();
      const byPerson = await createInterlock({ tools: [anything('MEDIUM')], models: { default: model() } });
      opened.push(byPerson);
      await (await byPerson.start(byPerson.registerWorkflow(workflow), { channel: 'cli' })).done();
      const [pending] = await byPerson.pending();
      await expect(
        byPerson.respond(pending?.interactionId ?? '', { approved: true, editedParameters: { value } }),
      ).rejects.toThrow(/not plain JSON/);
      expect(ran).toEqual([]);
    },
  );
});
