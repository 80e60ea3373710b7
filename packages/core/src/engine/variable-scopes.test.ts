import { afterEach, describe, expect, it } from 'vitest';
import { askNode, linearWorkflow } from '../__fixtures__/workflows.js';
import { createInterlock, type Interlock } from '../index.js';
import { scriptedHandler } from '../testing/index.js';

let interlock: Interlock | undefined;
afterEach(async () => {
  await interlock?.close();
  interlock = undefined;
});

const assign = (
  id: string,
  variableName: string,
  expression: string,
  scope?: 'global' | 'thread' | 'subgraph' | 'loop',
) => ({
  id,
  type: 'VARIABLE' as const,
  config: { assignments: [{ variableName, expression, ...(scope === undefined ? {} : { scope }) }] },
});

describe('variable scopes (F3)', () => {
  it('global variables are shared by every thread of a workflow', async () => {
    interlock = await createInterlock();
    const workflow = interlock.registerWorkflow(
      linearWorkflow([assign('count', 'visits', '{{ visits + 1 }}'), assign('out', 'output', '{{ visits }}')], {
        variables: [{ name: 'visits', scope: 'global', default: 0 }],
      }),
    );
    const outputs = [];
    for (let run = 0; run < 3; run += 1) outputs.push(await (await interlock.start(workflow)).done());
    expect(outputs.map((outcome) => outcome.status === 'completed' && outcome.output)).toEqual([1, 2, 3]);
  });

  it('thread variables belong to one thread', async () => {
    interlock = await createInterlock();
    const workflow = interlock.registerWorkflow(
      linearWorkflow([assign('count', 'visits', '{{ visits + 1 }}'), assign('out', 'output', '{{ visits }}')], {
        variables: [{ name: 'visits', scope: 'thread', default: 0 }],
      }),
    );
    const first = await (await interlock.start(workflow)).done();
    const second = await (await interlock.start(workflow)).done();
    expect([first, second].map((outcome) => outcome.status === 'completed' && outcome.output)).toEqual([1, 1]);
  });

  it('a SUBGRAPH runs in its own subgraph scope: inputs and outputs are mapped explicitly, thread scope is shared', async () => {
    interlock = await createInterlock();
    interlock.registerWorkflow(
      linearWorkflow(
        [
          assign('shout', 'result', "{{ text + '!' }}"),
          assign('local', 'note', 'child wrote this'),
          assign('thread', 'trail', "{{ trail + ['child'] }}"),
        ],
        {
          id: 'child',
          variables: [
            { name: 'text', scope: 'subgraph' },
            { name: 'result', scope: 'subgraph' },
            { name: 'note', scope: 'subgraph', default: 'child default' },
            { name: 'trail', scope: 'thread', default: [] },
          ],
        },
      ),
    );
    const parent = interlock.registerWorkflow(
      linearWorkflow(
        [
          assign('before', 'trail', "{{ trail + ['parent'] }}"),
          {
            id: 'sub',
            type: 'SUBGRAPH',
            config: { workflow: 'child', input: { text: '{{ word }}' }, output: { output: '{{ result }}' } },
          },
          assign('check', 'note', '{{ note }}'),
        ],
        {
          id: 'parent',
          variables: [
            { name: 'word', scope: 'thread', default: 'hello' },
            { name: 'note', scope: 'subgraph', default: 'parent note' },
            { name: 'trail', scope: 'thread', default: [] },
          ],
        },
      ),
    );
    const outcome = await (await interlock.start(parent)).done();
    expect(outcome).toMatchObject({ status: 'completed', output: 'hello!', variables: { trail: ['parent', 'child'] } });
    // The child's `note` never leaked into the parent's subgraph scope.
    const [thread] = await interlock.threads();
    expect(thread?.frames[0]?.variables).toEqual({ note: 'parent note' });
  });

  it("a SUBGRAPH child's global variables start at their defaults", async () => {
    interlock = await createInterlock();
    interlock.registerWorkflow(
      linearWorkflow([assign('bump', 'counter', '{{ counter + 1 }}')], {
        id: 'counter-child',
        variables: [{ name: 'counter', scope: 'global', default: 5 }],
      }),
    );
    const parent = interlock.registerWorkflow(
      linearWorkflow(
        [{ id: 'sub', type: 'SUBGRAPH', config: { workflow: 'counter-child', output: { output: '{{ counter }}' } } }],
        {
          id: 'counter-parent',
        },
      ),
    );
    expect(await (await interlock.start(parent)).done()).toMatchObject({ status: 'completed', output: 6 });
    expect(await (await interlock.start(parent)).done()).toMatchObject({ status: 'completed', output: 7 });
  });

  it('a SUBGRAPH can wait for a person, and the answer lands in the child', async () => {
    interlock = await createInterlock({ handlers: { cli: scriptedHandler([{ input: 'from child' }]) } });
    interlock.registerWorkflow(
      linearWorkflow([askNode('ask', { variables: [{ variableName: 'reply', expression: '{{ input }}' }] })], {
        id: 'asker',
        variables: [{ name: 'reply', scope: 'subgraph' }],
      }),
    );
    const parent = interlock.registerWorkflow(
      linearWorkflow(
        [{ id: 'sub', type: 'SUBGRAPH', config: { workflow: 'asker', output: { output: '{{ reply }}' } } }],
        { id: 'p2' },
      ),
    );
    expect(await (await interlock.start(parent, { channel: 'cli' })).done()).toMatchObject({ output: 'from child' });
  });

  it('loop variables shadow outer variables of the same name, only inside the loop', async () => {
    interlock = await createInterlock();
    const workflow = interlock.registerWorkflow(
      linearWorkflow(
        [
          { id: 'loop', type: 'LOOP', config: { items: '[1, 2]', itemVariable: 'value', body: 'collect' } },
          assign('collect', 'seen', '{{ seen + [value] }}'),
          assign('after', 'output', '{{ value }}'),
        ],
        {
          variables: [
            { name: 'value', scope: 'thread', default: 'outer' },
            { name: 'seen', scope: 'thread', default: [] },
          ],
          edges: [
            { from: 'loop', to: 'after' },
            { from: 'collect', to: 'loop' },
          ],
        },
      ),
    );
    const outcome = await (await interlock.start(workflow)).done();
    expect(outcome).toMatchObject({ status: 'completed', output: 'outer', variables: { seen: [1, 2] } });
  });

  it('refuses a write from a handler to an undeclared variable', async () => {
    let error: unknown;
    interlock = await createInterlock({
      handlers: {
        cli: scriptedHandler([
          (_request, context) => {
            try {
              context.setVariable('undeclared', 1);
            } catch (caught) {
              error = caught;
            }
            return { outcome: 'responded', input: 'ok' };
          },
        ]),
      },
    });
    const workflow = interlock.registerWorkflow(linearWorkflow([askNode()]));
    await (await interlock.start(workflow, { channel: 'cli' })).done();
    expect(error).toMatchObject({ code: 'VARIABLE_UNDECLARED' });
  });
});
