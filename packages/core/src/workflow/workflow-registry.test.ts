import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { linearWorkflow } from '../__fixtures__/workflows.js';
import { InterlockError } from '../errors/interlock-error.js';
import { WorkflowRegistry } from './workflow-registry.js';

async function fileWith(name: string, text: string): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'interlock-workflow-'));
  const path = join(directory, name);
  await writeFile(path, text);
  return path;
}

function issuesOf(action: () => unknown): { path: string; message: string }[] {
  try {
    action();
  } catch (error) {
    if (InterlockError.is(error) && error.code === 'WORKFLOW_INVALID')
      return error.details.issues as { path: string; message: string }[];
    throw error;
  }
  throw new Error('expected the workflow to be refused');
}

const START_END = `
[[nodes]]
id = "start"
type = "START"

[[nodes]]
id = "end"
type = "END"
`;

describe('WorkflowRegistry (F1)', () => {
  it('loads the example workflows', async () => {
    const registry = new WorkflowRegistry();
    await expect(registry.load('examples/workflows/plan-approval.toml')).resolves.toMatchObject({
      id: 'plan-approval',
    });
    await expect(registry.load('examples/workflows/ask-user.toml')).resolves.toMatchObject({ id: 'ask-user' });
  });

  it('refuses a bad file before anything runs, listing every error with its path', async () => {
    const path = await fileWith(
      'bad.toml',
      `id = "bad"
name = "Bad"
[[variables]]
name = "approved"
${START_END}
[[nodes]]
id = "ask"
type = "USER_INTERACTION"
[nodes.config]
operationType = "UPDATE_VARIABLES"
prompt = "ok?"
variables = [ { variableName = "approved", expression = "{{ input }}", scope = "galactic" } ]
showMessage = "UI fields do not belong here"
`,
    );
    const error = await new WorkflowRegistry().load(path).catch((caught: unknown) => caught);
    expect(InterlockError.is(error) && error.code).toBe('WORKFLOW_INVALID');
    const message = (error as Error).message;
    expect(message).toContain('nodes[2].config.variables[0].scope');
    expect(message).toMatch(/global.*thread.*subgraph.*loop/);
    expect(message).toContain('showMessage');
    expect(message).toContain(path);
  });

  it('reports graph errors: duplicate ids, unknown edge targets, unreachable nodes, ROUTE without default', () => {
    const registry = new WorkflowRegistry();
    const issues = issuesOf(() =>
      registry.register({
        id: 'graph',
        name: 'Graph',
        nodes: [
          { id: 'start', type: 'START' },
          { id: 'route', type: 'ROUTE', config: { branches: [{ condition: 'true', to: 'end' }] } },
          { id: 'end', type: 'END' },
        ],
        edges: [{ from: 'start', to: 'route' }],
      }),
    );
    expect(issues).toContainEqual({ path: 'nodes[1].config.default', message: expect.any(String) });

    const more = issuesOf(() =>
      registry.register({
        id: 'graph',
        name: 'Graph',
        nodes: [
          { id: 'start', type: 'START' },
          { id: 'end', type: 'END' },
          { id: 'end', type: 'END' },
          { id: 'island', type: 'VARIABLE', config: { assignments: [{ variableName: 'x', expression: '1' }] } },
        ],
        variables: [{ name: 'x' }],
        edges: [
          { from: 'start', to: 'end' },
          { from: 'start', to: 'nowhere' },
          { from: 'island', to: 'end' },
        ],
      }),
    );
    expect(more).toEqual(
      expect.arrayContaining([
        { path: 'nodes[2].id', message: 'duplicate node id "end" (also nodes[1])' },
        { path: 'edges[1].to', message: 'unknown node "nowhere"' },
        { path: 'nodes[0]', message: 'START node "start" needs exactly one outgoing edge, found 2' },
        { path: 'nodes[3]', message: 'node "island" is unreachable from START' },
      ]),
    );
  });

  it('reports undeclared variables in writes and in expressions, and scope mismatches', () => {
    const issues = issuesOf(() =>
      new WorkflowRegistry().register(
        linearWorkflow([
          {
            id: 'set',
            type: 'VARIABLE',
            config: { assignments: [{ variableName: 'ghost', expression: '{{ phantom + 1 }}' }] },
          },
          {
            id: 'scoped',
            type: 'VARIABLE',
            config: { assignments: [{ variableName: 'output', expression: 'x', scope: 'global' }] },
          },
          {
            id: 'route',
            type: 'ROUTE',
            config: { branches: [{ condition: 'missing == 1', to: 'end' }], default: 'end' },
          },
        ]),
      ),
    );
    expect(issues).toEqual(
      expect.arrayContaining([
        {
          path: 'nodes[1].config.assignments[0].variableName',
          message: expect.stringContaining('"ghost" is not declared'),
        },
        { path: 'nodes[1].config.assignments[0].expression', message: expect.stringContaining('phantom') },
        {
          path: 'nodes[2].config.assignments[0].variableName',
          message: 'variable "output" is declared with scope "thread", not "global"',
        },
        { path: 'nodes[3].config.branches[0].condition', message: expect.stringContaining('missing') },
      ]),
    );
  });

  it('reports an expression that does not parse', () => {
    const issues = issuesOf(() =>
      new WorkflowRegistry().register(
        linearWorkflow([
          {
            id: 'set',
            type: 'VARIABLE',
            config: { assignments: [{ variableName: 'output', expression: '{{ 1 + }}' }] },
          },
        ]),
      ),
    );
    expect(issues[0]?.path).toBe('nodes[1].config.assignments[0].expression');
  });

  it('refuses a file that is not valid TOML, and one with another extension', async () => {
    const broken = await fileWith('broken.toml', 'id = "x\nname = ');
    await expect(new WorkflowRegistry().load(broken)).rejects.toThrow(/not valid TOML/);
    const yaml = await fileWith('flow.yaml', 'id: x');
    await expect(new WorkflowRegistry().load(yaml)).rejects.toThrow(/must end in \.toml or \.json/);
    await expect(new WorkflowRegistry().load('/no/such/file.toml')).rejects.toMatchObject({
      code: 'WORKFLOW_NOT_FOUND',
    });
  });

  it('loads JSON with the same schema, and SUBGRAPH files relative to the parent', async () => {
    const child = await fileWith('child.json', JSON.stringify(linearWorkflow([], { id: 'child-flow' })));
    const parentPath = child.replace('child.json', 'parent.json');
    await writeFile(
      parentPath,
      JSON.stringify(
        linearWorkflow([{ id: 'sub', type: 'SUBGRAPH', config: { workflow: './child.json' } }], { id: 'parent-flow' }),
      ),
    );
    const registry = new WorkflowRegistry();
    const parent = await registry.load(parentPath);
    expect(parent.nodes.find((node) => node.id === 'sub')).toMatchObject({ config: { workflow: 'child-flow' } });
    expect(registry.find('child-flow')).toBeDefined();
  });

  it("checks a SUBGRAPH's output templates against the child's variables", () => {
    const registry = new WorkflowRegistry();
    registry.register(linearWorkflow([], { id: 'child' }));
    const issues = issuesOf(() =>
      registry.register(
        linearWorkflow([
          { id: 'sub', type: 'SUBGRAPH', config: { workflow: 'child', output: { output: '{{ nothere }}' } } },
        ]),
      ),
    );
    expect(issues).toEqual([{ path: 'nodes[1].config.output.output', message: expect.stringContaining('nothere') }]);
  });

  it("accepts seed 000's layout, with everything under a [workflow] table", async () => {
    const path = await fileWith(
      'wrapped.toml',
      `[workflow]
id = "wrapped"
name = "Wrapped"

[workflow.config.toolApproval]
autoApprovedTools = ["get_weather"]
approvalTimeout = 60000

[[workflow.nodes]]
id = "start"
type = "START"

[[workflow.nodes]]
id = "end"
type = "END"

[[workflow.edges]]
from = "start"
to = "end"
`,
    );
    const workflow = await new WorkflowRegistry().load(path);
    expect(workflow.config.toolApproval).toEqual({ autoApprovedTools: ['get_weather'], approvalTimeout: 60_000 });
  });

  it("accepts seed 000's [[workflow.config]] layout (one table), and refuses several with the accepted layout (issue 16)", async () => {
    const seed = (configs: number) =>
      fileWith(
        `seed-${configs}.toml`,
        `[workflow]
id = "seed"
name = "Seed"
${Array.from(
  { length: configs },
  () => `
[[workflow.config]]
timeout = 60000
maxSteps = 100

[workflow.config.toolApproval]
autoApprovedTools = ["get_weather"]
approvalTimeout = 60000
`,
).join('')}
[[workflow.nodes]]
id = "start"
type = "START"

[[workflow.nodes]]
id = "end"
type = "END"

[[workflow.edges]]
from = "start"
to = "end"
`,
      );
    const workflow = await new WorkflowRegistry().load(await seed(1));
    expect(workflow.config).toMatchObject({
      timeout: 60_000,
      maxSteps: 100,
      toolApproval: { autoApprovedTools: ['get_weather'], approvalTimeout: 60_000 },
    });
    await expect(new WorkflowRegistry().load(await seed(2))).rejects.toMatchObject({
      code: 'WORKFLOW_INVALID',
      message: expect.stringContaining('[workflow.config] (or [[workflow.config]] once)'),
    });
  });

  it('refuses a SUBGRAPH that names an unknown workflow', () => {
    const issues = issuesOf(() =>
      new WorkflowRegistry().register(linearWorkflow([{ id: 'sub', type: 'SUBGRAPH', config: { workflow: 'nope' } }])),
    );
    expect(issues).toEqual([
      { path: 'nodes[1].config.workflow', message: expect.stringContaining('no workflow "nope"') },
    ]);
  });
});

describe('every problem of a workflow in one run (F1, issue 37)', () => {
  /** Problems of every kind at once: the config's layout, the schema's, the graph's and the variables'. */
  const broken = {
    id: 'many problems',
    name: 'Many problems',
    config: [{ timeout: 1 }, { timeout: 2 }],
    variables: [
      { name: 'notes', scope: 'thread' },
      { name: 'bad name!', scope: 'thread' },
    ],
    nodes: [
      { id: 'start', type: 'START' },
      { id: 'ask', type: 'USER_INTERACTION', config: { prompt: 'Which?', operationType: 'NOT_A_TYPE' } },
      {
        id: 'write',
        type: 'VARIABLE',
        config: { assignments: [{ variableName: 'undeclared', expression: '{{ missing }}' }] },
      },
      { id: 'end', type: 'END' },
      { id: 'end', type: 'END' },
      { id: 'island', type: 'VARIABLE', config: { assignments: [{ variableName: 'notes', expression: '1' }] } },
    ],
    edges: [
      { from: 'start', to: 'write' },
      { from: 'write', to: 'nowhere' },
      { from: 'ask', to: 'end' },
    ],
  };

  function fixed(workflow: typeof broken, part: 'layout' | 'schema'): unknown {
    if (part === 'layout') return { ...workflow, config: workflow.config[0] };
    return {
      ...workflow,
      variables: workflow.variables.slice(0, 1),
      nodes: workflow.nodes.map((node) =>
        node.id === 'ask'
          ? {
              ...node,
              config: {
                prompt: 'Which?',
                operationType: 'UPDATE_VARIABLES',
                input: { kind: 'text' },
                variables: [{ variableName: 'notes', expression: '{{ input }}' }],
              },
            }
          : node,
      ),
    };
  }

  it('lists the problems of the schema and of the graph together, and fixing some reveals no new one', () => {
    const registry = () => new WorkflowRegistry();
    const all = issuesOf(() => registry().register(broken));
    const messages = all.map((issue) => `${issue.path}: ${issue.message}`);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^config: config is one table/),
        expect.stringMatching(/^id: /),
        expect.stringMatching(/^variables\[1\]\.name: /),
        expect.stringMatching(/^nodes\[1\]/),
        expect.stringMatching(/^nodes\[4\]\.id: duplicate node id "end"/),
        expect.stringMatching(/^edges\[1\]\.to: unknown node "nowhere"/),
        expect.stringMatching(/variable "undeclared" is not declared/),
      ]),
    );
    // Nothing is said only because a part was left out: the edge from "ask" is not "unknown".
    expect(messages.join('\n')).not.toContain('unknown node "ask"');
    for (const part of ['layout', 'schema'] as const) {
      const after = issuesOf(() => registry().register(fixed(broken, part)));
      for (const issue of after) expect(all, `${issue.path}: ${issue.message}`).toContainEqual(issue);
    }
  });
});
