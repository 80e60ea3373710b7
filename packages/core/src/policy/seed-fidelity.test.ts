import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { linearWorkflow } from '../__fixtures__/workflows.js';
import { builtinTools, createInterlock, defineTool, type ApprovalOptions, type Interlock } from '../index.js';
import { scriptedHandler, scriptedModel } from '../testing/index.js';

/** Issue 16, seed fidelity: the seeds' yolo, strictMode, session memory and risk names. */

const opened: Interlock[] = [];
afterEach(async () => {
  for (const interlock of opened.splice(0)) await interlock.close();
});

async function explainWith(approval: ApprovalOptions, command: string) {
  const interlock = await createInterlock({ tools: builtinTools, approval });
  opened.push(interlock);
  return interlock.explain({ toolName: 'bash', arguments: { command } });
}

describe("seed 002's yolo", () => {
  it.each([
    'mkdir build',
    'cp a.txt b.txt',
    'rm old.txt',
    'git commit -m "wip"',
    'echo hi > notes.txt',
    'touch a && mv a b',
  ])('runs %s, a command that is only not read-only', async (command) => {
    expect(await explainWith({ mode: 'yolo' }, command)).toMatchObject({ outcome: 'allow', rule: 'mode:yolo' });
    expect((await explainWith({ mode: 'default' }, command)).outcome).toBe('ask');
  });

  it.each([
    'echo $(cat secret)',
    'eval "$CMD"',
    'python3 -c "import os"',
    '$PROGRAM --flag',
    'mkdir "$(whoami)"',
    'bash <<EOF\nls\nEOF',
    'mkdir x\u200B',
    // Issue 24: programs and files the command line does not show.
    'npm test',
    "sed 's/^//e' notes.txt",
  ])('still asks about %j, which the rules could not read through', async (command) => {
    expect((await explainWith({ mode: 'yolo' }, command)).outcome).toBe('ask');
  });

  it('still asks about high-risk commands and denies banned ones', async () => {
    expect(await explainWith({ mode: 'yolo' }, 'git push --force origin main')).toMatchObject({
      outcome: 'ask',
      rule: 'shell:high-risk:force-push',
    });
    expect((await explainWith({ mode: 'yolo' }, 'rm -rf /')).outcome).toBe('deny');
  });
});

describe("seed 003's strictMode", () => {
  it('asks for every call that is not LOW risk, in yolo too', async () => {
    expect((await explainWith({ mode: 'yolo', strictMode: true }, 'ls')).outcome).toBe('ask');
    expect((await explainWith({ mode: 'yolo', strictMode: true }, 'mkdir build')).outcome).toBe('ask');
    const interlock = await createInterlock({ tools: builtinTools, approval: { mode: 'yolo', strictMode: true } });
    opened.push(interlock);
    expect(interlock.explain({ toolName: 'write_file', arguments: { path: 'a.txt', content: 'x' } }).outcome).toBe(
      'ask',
    );
  });
});

describe("seed 003's session memory", () => {
  async function runTwice(approval: ApprovalOptions): Promise<number> {
    const directory = await mkdtemp(join(tmpdir(), 'interlock-memory-'));
    const note = defineTool({
      name: 'note',
      description: 'Notes a line',
      category: 'write',
      riskLevel: 'moderate',
      parameters: z.object({ text: z.string() }),
      execute: async () => 'noted',
    });
    const model = scriptedModel([
      { text: '', toolCalls: [{ id: 'a', name: 'note', arguments: { text: 'hi' } }] },
      'Noted.',
      { text: '', toolCalls: [{ id: 'b', name: 'note', arguments: { text: 'hi' } }] },
      'Noted again.',
    ]);
    const handler = scriptedHandler([
      { outcome: 'responded', input: { approved: true } },
      { outcome: 'responded', input: { approved: true } },
    ]);
    const interlock = await createInterlock({
      store: { type: 'sqlite', path: join(directory, 'store.db') },
      models: { default: model },
      tools: [note],
      workspaceRoot: directory,
      handlers: { cli: handler },
      approval,
    });
    opened.push(interlock);
    const workflow = interlock.registerWorkflow(
      linearWorkflow(
        [{ id: 'agent', type: 'LLM', config: { prompt: 'Note it', tools: ['note'], outputVariable: 'output' } }],
        { id: 'note-flow' },
      ),
    );
    for (let run = 0; run < 2; run += 1) {
      expect(
        await (await interlock.start(workflow, { channel: 'cli', session: { chatId: 'chat-1' } })).done(),
      ).toMatchObject({ status: 'completed' });
    }
    return handler.requests.length;
  }

  it('remembers an approved MEDIUM call for the window without being asked to (the seed default)', async () => {
    expect(await runTwice({})).toBe(1);
  });

  it('remembers only "remember" answers with sessionMemory: explicit', async () => {
    expect(await runTwice({ sessionMemory: 'explicit' })).toBe(2);
  });
});

describe('risk levels as the seeds write them', () => {
  it.each([
    ['moderate', 'MEDIUM'],
    ['Sensitive', 'HIGH'],
    ['public', 'LOW'],
    ['high', 'HIGH'],
    [' Low ', 'LOW'],
  ])('reads %j as %s', (given, expected) => {
    const tool = defineTool({
      name: 't',
      description: 'd',
      category: 'write',
      riskLevel: given as 'LOW',
      parameters: z.object({}),
      execute: async () => 'ok',
    });
    expect(tool.riskLevel).toBe(expected);
  });

  it('refuses a wrong one with an Interlock error naming the tool and the field', () => {
    expect(() =>
      defineTool({
        name: 'deploy',
        description: 'd',
        category: 'write',
        riskLevel: 'extreme' as 'LOW',
        parameters: z.object({}),
        execute: async () => 'ok',
      }),
    ).toThrow(
      expect.objectContaining({
        code: 'INVALID_OPTIONS',
        message: expect.stringMatching(/tool "deploy": riskLevel: a risk level is LOW, MEDIUM or HIGH .*"extreme"/i),
      }),
    );
  });
});
