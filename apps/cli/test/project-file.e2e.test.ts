import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createInterlock, openStore, type Interlock } from '@interlock/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './built-cli.js';
import { cliIn, jsonOf } from './cross-process.js';
import {
  MODEL_TEXT,
  startModelServer,
  startProcess,
  WEB_MAIN,
  type ModelServer,
  type Running,
} from './project-file/parts.js';

/*
 * One project file, read the same way by every command (issue 28, F49): a table of
 * settings × commands — `interlock run`, `interlock worker`, `interlock explain`,
 * `interlock mcp serve`, `interlock-web` and `createInterlock({ config })` — each cell a real
 * run (the built CLI and web app, in a directory holding the file) that shows the setting
 * took effect, or why it does not apply to that command.
 */

type Command = 'run' | 'worker' | 'explain' | 'mcp serve' | 'interlock-web' | 'createInterlock';
const COMMANDS: readonly Command[] = ['run', 'worker', 'explain', 'mcp serve', 'interlock-web', 'createInterlock'];

const KEY = 'team-secret-key';
let model: ModelServer;
const running: Running[] = [];
const closers: (() => Promise<unknown>)[] = [];
beforeAll(async () => {
  assertBuilt();
  model = await startModelServer();
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((process) => process.stop()));
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
});
afterAll(() => model.close());

const WORKFLOWS: Record<string, string> = {
  'agent.toml': `id = "team-agent"\nname = "Agent"\nversion = "1"\n[[nodes]]\nid = "start"\ntype = "START"\n[[nodes]]\nid = "agent"\ntype = "LLM"\nconfig = { systemPrompt = "Say hello.", outputVariable = "said" }\n[[nodes]]\nid = "end"\ntype = "END"\nconfig = { output = "{{ said }}" }\n[[variables]]\nname = "said"\nscope = "thread"\n[[edges]]\nfrom = "start"\nto = "agent"\n[[edges]]\nfrom = "agent"\nto = "end"\n`,
  'shell.toml': `id = "team-shell"\nname = "Shell"\nversion = "1"\n[[nodes]]\nid = "start"\ntype = "START"\n[[nodes]]\nid = "agent"\ntype = "LLM"\nconfig = { systemPrompt = "List files.", tools = ["bash"] }\n[[nodes]]\nid = "end"\ntype = "END"\n[[edges]]\nfrom = "start"\nto = "agent"\n[[edges]]\nfrom = "agent"\nto = "end"\n`,
  'write-secret.toml': writeWorkflow('team-write-secret', 'secrets/a.txt'),
  'write-notes.toml': writeWorkflow('team-write-notes', 'notes/a.txt'),
};

function writeWorkflow(id: string, path: string): string {
  return `id = "${id}"\nname = "Write"\nversion = "1"\n[config.toolApproval]\nautoApprovedTools = []\napprovalTimeout = "1h"\n[[nodes]]\nid = "start"\ntype = "START"\n[[nodes]]\nid = "write"\ntype = "TOOL"\nconfig = { tool = "write_file", arguments = { path = "${path}", content = "x" } }\n[[nodes]]\nid = "end"\ntype = "END"\n[[edges]]\nfrom = "start"\nto = "write"\n[[edges]]\nfrom = "write"\nto = "end"\n`;
}

/** A project directory: the file, the workflows, and what else `extra` names. */
async function projectDirectory(file: string, extra: Record<string, string> = {}): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'interlock-project-file-'));
  await writeFile(join(directory, 'interlock.toml'), file.replaceAll('MODEL_BASE_URL', model.baseUrl));
  for (const [name, text] of Object.entries({ ...WORKFLOWS, ...extra })) await writeFile(join(directory, name), text);
  return directory;
}

/** `createInterlock({ config })` on the directory's file, as a service would build it. */
async function library(directory: string): Promise<Interlock> {
  const interlock = await createInterlock({ config: join(directory, 'interlock.toml'), workspaceRoot: directory });
  closers.push(() => interlock.close());
  return interlock;
}

/** `interlock worker <files>` in the directory, once ready, and an answerer on its store that starts threads. */
async function worker(directory: string, files: string[], storePath = '.interlock/interlock.db') {
  const started = startProcess(directory, ['worker', ...files], { TEAM_MODEL_KEY: KEY });
  running.push(started);
  await started.printed(/Worker ready/);
  const answerer = await createInterlock({
    store: { type: 'sqlite', path: join(directory, storePath) },
    continueIn: 'workers-only',
    recoverOnStart: false,
  });
  closers.push(() => answerer.close());
  return { started, answerer };
}

async function ended(interlock: Interlock, threadId: string) {
  for (const started = Date.now(); Date.now() - started < 30_000;) {
    const thread = await interlock.thread(threadId);
    if (thread?.status === 'completed' || thread?.status === 'failed') return thread;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`thread ${threadId} did not end`);
}

/** The built interlock-web of a deployment, started in the directory (its project file, its store). */
async function web(directory: string, environment: NodeJS.ProcessEnv = {}) {
  const started = startProcess(
    directory,
    ['--port', '0', '--new-token', '--approvers', join(directory, 'approvers.json'), '--rate-limit', '100000'],
    environment,
    WEB_MAIN,
  );
  running.push(started);
  const [, baseUrl = ''] = await started.printed(/Interlock web inbox: (http:\/\/\S+?)\/\n/);
  const [, token = ''] = await started.printed(/\n\n {2}(\S+)\n\n/);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read whatever JSON came back
  const api = async (path: string, body?: unknown): Promise<{ status: number; body: any }> => {
    const response = await fetch(`${baseUrl}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
  };
  return { api };
}

type Cell = ((directory: string) => Promise<void>) | { notApplicable: string };

interface Setting {
  name: string;
  file: string;
  cells: Record<Command, Cell>;
}

const TABLE: Setting[] = [
  {
    name: '[models.default] (provider, model, baseUrl, apiKeyEnv)',
    file: `[models.default]\nprovider = "openai"\nmodel = "team-model"\nbaseUrl = "MODEL_BASE_URL"\napiKeyEnv = "TEAM_MODEL_KEY"\n`,
    cells: {
      run: async (directory) => {
        const ran = await cliIn(directory, ['run', 'agent.toml'], '', { TEAM_MODEL_KEY: KEY });
        expect(ran.exitCode, ran.stderr).toBe(0);
        expect(ran.stdout).toContain(MODEL_TEXT);
        expect(model.calls.at(-1)?.authorization).toBe(`Bearer ${KEY}`);
      },
      worker: async (directory) => {
        const { answerer } = await worker(directory, ['agent.toml']);
        const handle = await answerer.start(await answerer.loadWorkflow(join(directory, 'agent.toml')));
        expect(await ended(answerer, handle.threadId)).toMatchObject({ status: 'completed', output: MODEL_TEXT });
        expect(model.calls.at(-1)?.authorization).toBe(`Bearer ${KEY}`);
      },
      explain: { notApplicable: 'explain calls no model' },
      'mcp serve': { notApplicable: 'the MCP server decides about calls; it calls no model' },
      'interlock-web': { notApplicable: "a deployment's inbox holds no model (its workers do)" },
      createInterlock: async (directory) => {
        process.env['TEAM_MODEL_KEY'] = KEY;
        try {
          const interlock = await library(directory);
          const workflow = await interlock.loadWorkflow(join(directory, 'agent.toml'));
          expect(await (await interlock.start(workflow)).done()).toMatchObject({
            status: 'completed',
            output: MODEL_TEXT,
          });
          expect(model.calls.at(-1)?.authorization).toBe(`Bearer ${KEY}`);
        } finally {
          delete process.env['TEAM_MODEL_KEY'];
        }
      },
    },
  },
  {
    name: '[tools] builtins',
    file: `[tools]\nbuiltins = ["read_file", "write_file"]\n`,
    cells: {
      run: async (directory) => {
        const ran = await cliIn(directory, ['run', 'shell.toml']);
        expect(ran.exitCode).toBe(1);
        expect(ran.stderr).toMatch(/bash/);
      },
      worker: async (directory) => {
        const started = startProcess(directory, ['worker', 'shell.toml']);
        running.push(started);
        expect(await started.exit).toBe(1);
        expect(started.output()).toMatch(/bash/);
      },
      explain: async (directory) => {
        const explained = jsonOf<{ outcome: string; rule: string }>(
          await cliIn(directory, ['explain', 'bash', '{"command":"ls"}', '--json']),
        );
        expect(explained).toMatchObject({ outcome: 'deny', rule: 'tool:not-found' });
      },
      'mcp serve': { notApplicable: "the MCP server decides about the agent's tools, not Interlock's built-ins" },
      'interlock-web': { notApplicable: "a deployment's inbox holds no tool (its workers do)" },
      createInterlock: async (directory) => {
        const interlock = await library(directory);
        expect(interlock.explain({ toolName: 'bash', arguments: { command: 'ls' } })).toMatchObject({ notFound: true });
        expect(interlock.explain({ toolName: 'read_file', arguments: { path: 'a' } }).notFound).toBe(false);
      },
    },
  },
  {
    name: '[approval] denyRules',
    file: `[approval]\ndenyRules = ['tool == "write_file" && args.path.startsWith("secrets")', 'tool == "Bash" && args.command.contains("deploy")']\n`,
    cells: {
      run: async (directory) => {
        const ran = await cliIn(directory, ['run', 'write-secret.toml']);
        expect(ran.exitCode).toBe(1);
        expect(`${ran.stdout}${ran.stderr}`).toContain('deny-rule:0');
      },
      worker: async (directory) => {
        const { answerer } = await worker(directory, ['write-secret.toml']);
        const handle = await answerer.start(await answerer.loadWorkflow(join(directory, 'write-secret.toml')));
        expect(await ended(answerer, handle.threadId)).toMatchObject({ status: 'failed' });
        expect(await answerer.audit({ threadId: handle.threadId })).toContainEqual(
          expect.objectContaining({ outcome: 'deny', rule: 'deny-rule:0' }),
        );
      },
      explain: async (directory) => {
        const explained = jsonOf<{ outcome: string; rule: string; source: string }>(
          await cliIn(directory, ['explain', 'write_file', '{"path":"secrets/x","content":""}', '--json']),
        );
        expect(explained).toMatchObject({
          outcome: 'deny',
          rule: 'deny-rule:0',
          source: expect.stringContaining('approval.denyRules[0]'),
        });
      },
      'mcp serve': async (directory) => {
        const served = startProcess(directory, ['mcp', 'serve', '--http', '0']);
        running.push(served);
        const [, url = ''] = await served.printed(/on (http:\/\/\S+\/mcp)/);
        const client = new Client({ name: 'agent', version: '1' });
        await client.connect(new StreamableHTTPClientTransport(new URL(url)));
        closers.push(() => client.close());
        const result = await client.callTool({
          name: 'approval_prompt',
          arguments: { tool_name: 'Bash', input: { command: 'make deploy' }, tool_use_id: 'toolu_1' },
        });
        expect(JSON.parse((result.content as { text: string }[])[0]?.text ?? '')).toMatchObject({
          behavior: 'deny',
          message: expect.stringContaining('deny-rule:1'),
        });
      },
      'interlock-web': async (directory) => {
        const { answerer } = await worker(directory, ['write-notes.toml']);
        const handle = await answerer.start(await answerer.loadWorkflow(join(directory, 'write-notes.toml')));
        const inbox = await web(directory);
        let waiting: { interactionId: string } | undefined;
        for (const started = Date.now(); waiting === undefined && Date.now() - started < 30_000;) {
          waiting = (await inbox.api(`/api/interactions?threadId=${handle.threadId}`)).body.interactions[0];
          if (waiting === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
        }
        const edited = await inbox.api(`/api/interactions/${waiting?.interactionId}/respond`, {
          action: 'edit',
          arguments: { path: 'secrets/b.txt', content: 'x' },
        });
        expect(edited).toMatchObject({ status: 422, body: { message: expect.stringContaining('deny-rule:0') } });
      },
      createInterlock: async (directory) => {
        const interlock = await library(directory);
        expect(
          interlock.explain({ toolName: 'write_file', arguments: { path: 'secrets/x', content: '' } }),
        ).toMatchObject({ outcome: 'deny', rule: 'deny-rule:0' });
      },
    },
  },
  {
    name: '[store] (a SQLite file beside the project file)',
    file: `[store]\ntype = "sqlite"\npath = "data/team.db"\n`,
    cells: {
      run: async (directory) => {
        const detached = jsonOf<{ threadId: string }>(
          await cliIn(directory, ['run', 'write-notes.toml', '--detach', '--json']),
        );
        const store = await openStore({ type: 'sqlite', path: join(directory, 'data', 'team.db') });
        expect(await store.getThread(detached.threadId)).toMatchObject({ status: 'waiting' });
        await store.close();
      },
      worker: async (directory) => {
        const started = startProcess(directory, ['worker', 'write-notes.toml']);
        running.push(started);
        await started.printed(new RegExp(`on sqlite:${join(directory, 'data', 'team.db').replaceAll('/', '\\/')}`));
      },
      explain: { notApplicable: 'explain reads no store' },
      'mcp serve': async (directory) => {
        const served = startProcess(directory, ['mcp', 'serve', '--http', '0']);
        running.push(served);
        await served.printed(new RegExp(`store sqlite:${join(directory, 'data', 'team.db').replaceAll('/', '\\/')}`));
      },
      'interlock-web': async (directory) => {
        const detached = jsonOf<{ threadId: string }>(
          await cliIn(directory, ['run', 'write-notes.toml', '--detach', '--json']),
        );
        const inbox = await web(directory);
        expect((await inbox.api(`/api/interactions?threadId=${detached.threadId}`)).body.interactions).toHaveLength(1);
      },
      createInterlock: async (directory) => {
        const detached = jsonOf<{ threadId: string }>(
          await cliIn(directory, ['run', 'write-notes.toml', '--detach', '--json']),
        );
        const interlock = await library(directory);
        expect((await interlock.threads()).map((thread) => thread.threadId)).toContain(detached.threadId);
      },
    },
  },
  {
    name: '[store] urlEnv naming a variable that is not set',
    file: `[store]\ntype = "postgres"\nurlEnv = "TEAM_DATABASE_URL_UNSET"\n`,
    cells: {
      run: refusedNaming(['run', 'write-notes.toml'], 'TEAM_DATABASE_URL_UNSET'),
      worker: refusedNaming(['worker', 'write-notes.toml'], 'TEAM_DATABASE_URL_UNSET'),
      explain: { notApplicable: 'explain reads no store' },
      'mcp serve': refusedNaming(['mcp', 'serve'], 'TEAM_DATABASE_URL_UNSET'),
      'interlock-web': async (directory) => {
        const started = startProcess(directory, ['--port', '0'], {}, WEB_MAIN);
        running.push(started);
        expect(await started.exit).toBe(1);
        expect(started.output()).toContain('TEAM_DATABASE_URL_UNSET');
      },
      createInterlock: async (directory) => {
        await expect(createInterlock({ config: join(directory, 'interlock.toml') })).rejects.toMatchObject({
          code: 'INVALID_OPTIONS',
          message: expect.stringContaining('TEAM_DATABASE_URL_UNSET'),
        });
      },
    },
  },
];

/** A command that must refuse the file, naming what is wrong (`config check` and `threads` likewise). */
function refusedNaming(args: string[], name: string): Cell {
  return async (directory) => {
    for (const command of [args, ['config', 'check'], ['threads']]) {
      const ran = await cliIn(directory, command);
      expect(ran.exitCode, `interlock ${command.join(' ')}`).not.toBe(0);
      expect(ran.stderr, `interlock ${command.join(' ')}`).toContain(name);
    }
  };
}

describe('every command reads the project file the same way: settings × commands (issue 28, F49)', () => {
  it('has a cell, or a reason it does not apply, for every setting and every command', () => {
    for (const setting of TABLE) expect(Object.keys(setting.cells).sort()).toEqual([...COMMANDS].sort());
  });

  for (const setting of TABLE) {
    for (const command of COMMANDS) {
      const cell = setting.cells[command];
      if (typeof cell !== 'function') continue;
      it(`${setting.name} × ${command}`, async () => {
        await cell(await projectDirectory(setting.file));
      }, 90_000);
    }
  }

  it('refuses, in every command, a directory with both interlock.toml and interlock.json', async () => {
    const directory = await projectDirectory('[approval]\nmode = "default"\n', { 'interlock.json': '{}' });
    for (const args of [
      ['run', 'agent.toml'],
      ['worker', 'agent.toml'],
      ['explain', 'bash', '{}'],
      ['mcp', 'serve'],
      ['config', 'check'],
    ]) {
      const ran = await cliIn(directory, args);
      expect(ran.exitCode, args.join(' ')).not.toBe(0);
      expect(ran.stderr, args.join(' ')).toContain('both interlock.toml and interlock.json');
    }
    const inbox = startProcess(directory, ['--port', '0'], {}, WEB_MAIN);
    running.push(inbox);
    expect(await inbox.exit).toBe(1);
    expect(inbox.output()).toContain('both interlock.toml and interlock.json');
  }, 120_000);
});
