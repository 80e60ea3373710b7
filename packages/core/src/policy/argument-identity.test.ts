import fc from 'fast-check';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { linearWorkflow } from '../__fixtures__/workflows.js';
import { createInterlock, defineTool, type Interlock } from '../index.js';
import { scriptedHandler, scriptedModel } from '../testing/index.js';
import { defineTool as define } from '../tools/define-tool.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { resolveApprovalOptions } from './approval-options.js';
import { ARGUMENT_LIMITS, canonicalJson, hashArguments } from './canonical-arguments.js';
import { decideApproval } from './decide-approval.js';
import { SessionMemory } from './session-memory.js';

/** Issue 13, class 4: argument identity cannot be forged through the JS API (F17, F19). */

function deeplyNested(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let level = 0; level < depth; level += 1) value = { inner: value };
  return value;
}

const cyclic = (): unknown => {
  const value: Record<string, unknown> = { name: 'loop' };
  value.self = value;
  return value;
};

class Money {
  constructor(readonly cents: number) {}
}

const notJson: [string, () => unknown][] = [
  ['NaN', () => ({ amount: Number.NaN })],
  ['Infinity', () => ({ amount: Number.POSITIVE_INFINITY })],
  ['-Infinity', () => ({ amount: Number.NEGATIVE_INFINITY })],
  ['-0', () => ({ amount: -0 })],
  ['an undefined value', () => ({ path: undefined })],
  ['undefined in a list', () => ({ paths: ['a', undefined] })],
  ['a hole in a list', () => ({ paths: [, 'b'] })], // eslint-disable-line no-sparse-arrays
  ['a Map', () => ({ headers: new Map([['a', '1']]) })],
  ['a Set', () => ({ ids: new Set([1, 2]) })],
  ['a Date', () => ({ at: new Date(0) })],
  ['a class instance', () => ({ price: new Money(5) })],
  ['a bigint', () => ({ big: 10n })],
  ['a function', () => ({ run: () => 1 })],
  ['a symbol key', () => ({ [Symbol('hidden')]: 1 })],
  ['a cycle', cyclic],
  ['arguments 100,000 levels deep', () => deeplyNested(100_000)],
];

describe('canonical arguments are JSON values only (issue 13)', () => {
  it.each(notJson)('refuses %s with TOOL_ARGUMENTS_INVALID, saying where', (_name, make) => {
    expect(() => hashArguments(make())).toThrow(
      expect.objectContaining({ code: 'TOOL_ARGUMENTS_INVALID', message: expect.stringMatching(/not plain JSON: .+/) }),
    );
  });

  it('gives two JSON values one hash exactly when they are the same value (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.jsonValue({ maxDepth: 4 }), (left, right) => {
        const clean = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown; // fast-check may produce -0
        const [a, b] = [clean(left), clean(right)];
        expect(hashArguments(a) === hashArguments(b)).toBe(canonicalJson(a) === canonicalJson(b));
      }),
    );
  });

  it('treats key order as the same value and a missing key as different from null', () => {
    expect(hashArguments({ a: 1, b: [2, { c: 3, d: 4 }] })).toBe(hashArguments({ b: [2, { d: 4, c: 3 }], a: 1 }));
    expect(hashArguments({ a: null })).not.toBe(hashArguments({}));
    expect(hashArguments({ a: 0 })).not.toBe(hashArguments({ a: null }));
  });

  it('checks size before recursing: too many values or characters are refused', () => {
    expect(() => hashArguments({ list: Array.from({ length: ARGUMENT_LIMITS.maxValues + 1 }, () => 0) })).toThrow(
      /more than 100000 values/,
    );
    expect(() => hashArguments({ text: 'x'.repeat(ARGUMENT_LIMITS.maxCharacters + 1) })).toThrow(
      /more than 10000000 characters/,
    );
  });
});

describe('a refused call is a tool error the model sees, not a failed thread (issue 13)', () => {
  let interlock: Interlock | undefined;
  afterEach(async () => {
    await interlock?.close();
    interlock = undefined;
  });

  it.each([
    ['arguments 100,000 levels deep', deeplyNested(100_000)],
    ['a NaN amount', { amount: Number.NaN }],
    ['a Map', { headers: new Map([['a', '1']]) }],
  ])('with %s, tells the model and finishes the run', async (_name, args) => {
    let ran = 0;
    const pay = defineTool({
      name: 'pay',
      description: 'Pays an amount',
      category: 'network',
      riskLevel: 'LOW',
      parameters: z.object({}).passthrough(),
      execute: async () => {
        ran += 1;
        return 'paid';
      },
    });
    const model = scriptedModel([
      { text: 'Paying.', toolCalls: [{ id: 'call-1', name: 'pay', arguments: args as Record<string, unknown> }] },
      'Could not pay.',
    ]);
    interlock = await createInterlock({
      models: { default: model },
      tools: [pay],
      workspaceRoot: await mkdtemp(join(tmpdir(), 'interlock-args-')),
    });
    const workflow = interlock.registerWorkflow(
      linearWorkflow(
        [{ id: 'agent', type: 'LLM', config: { prompt: 'Pay the bill', tools: ['pay'], outputVariable: 'output' } }],
        { id: 'pay-flow' },
      ),
    );
    const outcome = await (await interlock.start(workflow)).done();
    expect(outcome).toMatchObject({ status: 'completed', output: 'Could not pay.' });
    expect(ran).toBe(0);
    const toolMessage = model.requests[1]!.messages.find((message) => message.role === 'tool');
    expect(toolMessage?.content).toMatch(/not plain JSON/);
  });
});

describe('a remembered approval is bound to the tool definition (issue 13)', () => {
  const writeTool = (description: string, parameters: z.ZodType = z.object({ path: z.string() })) =>
    define({
      name: 'write',
      description,
      category: 'write',
      riskLevel: 'MEDIUM',
      parameters,
      execute: async () => 'ok',
    });

  function decide(tools: ToolRegistry, memory: SessionMemory) {
    return decideApproval(
      { toolName: 'write', arguments: { path: 'a.txt' } },
      {
        tools,
        options: resolveApprovalOptions({}),
        autoApprovedTools: [],
        shell: { classify: () => ({ verdict: 'safe', rule: 'shell:safe', reasons: [] }) },
        memory,
        scope: { channel: 'cli', chatId: 'chat-1' },
        now: 1_000,
      },
    );
  }

  it('is not reused once the tool is redefined under the same name', () => {
    const memory = new SessionMemory();
    const original = writeTool('Writes a file');
    memory.remember(SessionMemory.key({ channel: 'cli', chatId: 'chat-1' }, original, { path: 'a.txt' }), 0, 300_000);
    expect(decide(new ToolRegistry([original]), memory)).toMatchObject({ outcome: 'allow', rule: 'memory:session' });
    expect(decide(new ToolRegistry([writeTool('Writes a file')]), memory)).toMatchObject({ outcome: 'allow' }); // the same definition again
    expect(decide(new ToolRegistry([writeTool('Deletes a file')]), memory).outcome).toBe('ask');
    expect(
      decide(
        new ToolRegistry([writeTool('Writes a file', z.object({ path: z.string(), force: z.boolean().optional() }))]),
        memory,
      ).outcome,
    ).toBe('ask');
  });

  it('asks again, across processes on one store, when the tool behind the name changed', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'interlock-remember-'));
    const store = { type: 'sqlite' as const, path: join(directory, 'store.db') };
    /** One run of a fresh instance whose `note` tool has `description`; how many times the person was asked. */
    const askedWith = async (description: string) => {
      const tool = defineTool({
        name: 'note',
        description,
        category: 'write',
        riskLevel: 'MEDIUM',
        parameters: z.object({ text: z.string() }),
        execute: async () => 'noted',
      });
      const model = scriptedModel([
        { text: '', toolCalls: [{ id: 'n', name: 'note', arguments: { text: 'hi' } }] },
        'Done.',
      ]);
      const handler = scriptedHandler([{ outcome: 'responded', input: { approved: true, remember: true } }]);
      const instance = await createInterlock({
        store,
        models: { default: model },
        tools: [tool],
        workspaceRoot: directory,
        handlers: { cli: handler },
      });
      try {
        const workflow = instance.registerWorkflow(
          linearWorkflow(
            [{ id: 'agent', type: 'LLM', config: { prompt: 'Note it', tools: ['note'], outputVariable: 'output' } }],
            { id: 'note-flow' },
          ),
        );
        expect(
          await (await instance.start(workflow, { channel: 'cli', session: { chatId: 'chat-1' } })).done(),
        ).toMatchObject({ status: 'completed' });
        return handler.requests.length;
      } finally {
        await instance.close();
      }
    };
    expect(await askedWith('Notes a line')).toBe(1);
    expect(await askedWith('Notes a line')).toBe(0); // remembered: the same definition
    expect(await askedWith('Sends the line to everyone')).toBe(1); // redefined under the same name
  });
});
