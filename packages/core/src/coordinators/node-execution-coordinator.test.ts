import { afterEach, describe, expect, it } from 'vitest';
import type { InterlockEvent } from '@interlock/sdk-types';
import { askNode, linearWorkflow } from '../__fixtures__/workflows.js';
import { createInterlock, type Interlock } from '../index.js';
import { scriptedHandler, scriptedModel } from '../testing/index.js';

let interlock: Interlock | undefined;
afterEach(async () => {
  await interlock?.close();
  interlock = undefined;
});

async function run(
  workflow: Parameters<Interlock['registerWorkflow']>[0],
  options: { input?: Record<string, unknown>; answers?: unknown[]; replies?: string[] } = {},
) {
  interlock ??= await createInterlock({
    models: { default: scriptedModel(options.replies ?? []) },
    handlers: { cli: scriptedHandler((options.answers ?? []).map((input) => ({ input }))) },
  });
  const events: InterlockEvent[] = [];
  const definition = interlock.registerWorkflow(workflow);
  const thread = await interlock.start(definition, { channel: 'cli', input: options.input ?? {} });
  thread.events$.subscribe((event) => events.push(event));
  return { outcome: await thread.done(), events };
}

describe('NodeExecutionCoordinator', () => {
  it('reports thread and node events in order, and replays them to a late subscriber', async () => {
    const { outcome, events } = await run(
      linearWorkflow([
        { id: 'set', type: 'VARIABLE', config: { assignments: [{ variableName: 'output', expression: 'done' }] } },
      ]),
    );
    expect(outcome).toMatchObject({ status: 'completed', output: 'done' });
    expect(events.map((event) => `${event.type}${'nodeId' in event ? `:${event.nodeId}` : ''}`)).toEqual([
      'THREAD_STARTED',
      'NODE_STARTED:start',
      'NODE_COMPLETED:start',
      'NODE_STARTED:set',
      'NODE_COMPLETED:set',
      'NODE_STARTED:end',
      'NODE_COMPLETED:end',
      'THREAD_COMPLETED',
    ]);
  });

  describe('ROUTE (F6)', () => {
    const routeWorkflow = linearWorkflow(
      [
        {
          id: 'route',
          type: 'ROUTE',
          config: {
            branches: [
              { condition: 'score > 5', to: 'high' },
              { condition: '{{ score > 2 }}', to: 'mid' },
            ],
            default: 'low',
          },
        },
        { id: 'high', type: 'VARIABLE', config: { assignments: [{ variableName: 'output', expression: 'high' }] } },
        { id: 'mid', type: 'VARIABLE', config: { assignments: [{ variableName: 'output', expression: 'mid' }] } },
        { id: 'low', type: 'VARIABLE', config: { assignments: [{ variableName: 'output', expression: 'low' }] } },
      ],
      {
        variables: [{ name: 'score', scope: 'thread', default: 0 }],
        edges: [
          { from: 'high', to: 'end' },
          { from: 'mid', to: 'end' },
        ],
      },
    );

    it.each([
      [9, 'high'],
      [3, 'mid'],
      [1, 'low'],
    ])('score %i takes the %s branch (first true condition, else the default)', async (score, expected) => {
      const { outcome } = await run(routeWorkflow, { input: { score } });
      expect(outcome).toMatchObject({ output: expected });
    });
  });

  it('VARIABLE assigns in order, each assignment seeing the ones before it, keeping types', async () => {
    const { outcome } = await run(
      linearWorkflow(
        [
          {
            id: 'set',
            type: 'VARIABLE',
            config: {
              assignments: [
                { variableName: 'count', expression: '{{ count + 2 }}' },
                { variableName: 'output', expression: 'count is {{ count }}, double {{ count * 2 }}' },
              ],
            },
          },
        ],
        { variables: [{ name: 'count', scope: 'thread', default: 1 }] },
      ),
    );
    expect(outcome).toMatchObject({ status: 'completed', output: 'count is 3, double 6', variables: { count: 3 } });
  });

  it('UPDATE_VARIABLES binds the raw answer to `input` and branches on it (the demo flow)', async () => {
    const workflow = await (async () => {
      interlock = await createInterlock({
        models: { default: scriptedModel(['Plan v1', 'Plan v2', 'Shipped']) },
        handlers: { cli: scriptedHandler([{ input: 'no' }, { input: 'yes' }]) },
      });
      return interlock.loadWorkflow('examples/workflows/plan-approval.toml');
    })();
    const outcome = await (await interlock!.start(workflow, { channel: 'cli' })).done();
    expect(outcome).toMatchObject({
      status: 'completed',
      output: 'Plan v2',
      variables: { approved: true, revisions: 1 },
    });
  });

  it('LOOP runs its body once per item with fresh loop-scope variables, then leaves by its edge', async () => {
    const { outcome } = await run(
      linearWorkflow(
        [
          { id: 'loop', type: 'LOOP', config: { items: 'names', itemVariable: 'name', body: 'greet' } },
          {
            id: 'greet',
            type: 'VARIABLE',
            config: {
              assignments: [
                { variableName: 'seen', expression: "{{ seen + ' ' + name }}" },
                { variableName: 'scratch', expression: '{{ scratch + 1 }}' },
                { variableName: 'log', expression: "{{ log + [string(index) + ':' + string(scratch)] }}" },
              ],
            },
          },
          {
            id: 'after',
            type: 'VARIABLE',
            config: { assignments: [{ variableName: 'output', expression: '{{ seen }}' }] },
          },
        ],
        {
          variables: [
            { name: 'names', scope: 'thread', default: ['ada', 'grace', 'linus'] },
            { name: 'seen', scope: 'thread', default: '' },
            { name: 'log', scope: 'thread', default: [] },
            { name: 'scratch', scope: 'loop', default: 0 },
          ],
          edges: [
            { from: 'loop', to: 'after' },
            { from: 'greet', to: 'loop' },
          ],
        },
      ),
    );
    expect(outcome).toMatchObject({ status: 'completed', output: ' ada grace linus' });
    // `scratch` is reset every iteration, so it is 1 each time.
    expect(outcome.status === 'completed' && outcome.variables.log).toEqual(['0:1', '1:1', '2:1']);
  });

  it('LOOP refuses items that are not a list', async () => {
    const { outcome } = await run(
      linearWorkflow(
        [
          { id: 'loop', type: 'LOOP', config: { items: 'names', body: 'noop' } },
          { id: 'noop', type: 'VARIABLE', config: { assignments: [{ variableName: 'output', expression: 'x' }] } },
        ],
        {
          variables: [{ name: 'names', scope: 'thread', default: 'not a list' }],
          edges: [
            { from: 'loop', to: 'end' },
            { from: 'noop', to: 'loop' },
          ],
        },
      ),
    );
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'EXPRESSION_FAILED', nodeId: 'loop' } });
  });

  it('fails with MAX_STEPS_EXCEEDED when a cycle never exits', async () => {
    const { outcome, events } = await run(
      linearWorkflow(
        [
          {
            id: 'spin',
            type: 'VARIABLE',
            config: { assignments: [{ variableName: 'output', expression: '{{ output }}' }] },
          },
          { id: 'again', type: 'ROUTE', config: { branches: [{ condition: 'false', to: 'end' }], default: 'spin' } },
        ],
        { maxSteps: 25 },
      ),
    );
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'MAX_STEPS_EXCEEDED' } });
    expect(outcome.status === 'failed' && outcome.error.message).toContain('maxSteps');
    expect(events.filter((event) => event.type === 'NODE_STARTED')).toHaveLength(25);
  });

  it('fails clearly when an LLM node names a model that was not given', async () => {
    const { outcome } = await run(linearWorkflow([{ id: 'think', type: 'LLM', config: { model: 'gpt-x' } }]));
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'MODEL_NOT_FOUND' } });
    expect(outcome.status === 'failed' && outcome.error.message).toContain('"gpt-x"');
  });

  it('LLM nodes stream text, append the answer to the conversation and store it', async () => {
    const { outcome, events } = await run(
      linearWorkflow(
        [{ id: 'think', type: 'LLM', config: { prompt: 'Say hi to {{ name }}', outputVariable: 'output' } }],
        {
          variables: [{ name: 'name', scope: 'thread', default: 'Ada' }],
        },
      ),
      { replies: ['Hello there, Ada'] },
    );
    expect(outcome).toMatchObject({ status: 'completed', output: 'Hello there, Ada' });
    const deltas = events.filter((event) => event.type === 'LLM_TEXT_DELTA').map((event) => event.delta);
    expect(deltas.join('')).toBe('Hello there, Ada');
    expect(deltas.length).toBeGreaterThan(1);
  });

  it('refuses input that is not a declared variable', async () => {
    interlock = await createInterlock();
    const workflow = interlock.registerWorkflow(linearWorkflow([askNode()]));
    await expect(interlock.start(workflow, { input: { nope: 1 } })).rejects.toMatchObject({
      code: 'VARIABLE_UNDECLARED',
    });
  });
});
