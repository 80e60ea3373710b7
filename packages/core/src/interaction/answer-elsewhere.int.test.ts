import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentTool, createInterlock, type Interlock } from '../index.js';
import { agentWrite } from './__fixtures__/agent-write.js';

/*
 * Issue 28/29: an agent's absolute paths are judged against the workspace the agent asked
 * in, also when the answer comes from another process whose working directory is not the
 * agent's (a deployment's inbox, `interlock respond` run elsewhere). The answerer is a real
 * process of the built package, started in a directory of its own.
 */
const ANSWER = fileURLToPath(new URL('./__fixtures__/answer-from-elsewhere.mjs', import.meta.url));
const DIST = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

let root: string;
let agentWorkspace: string;
let answererDirectory: string;
beforeAll(async () => {
  if (!existsSync(DIST)) throw new Error(`${DIST} is missing: run \`pnpm --filter @interlock/core build\` first`);
  root = await realpath(await mkdtemp(join(tmpdir(), 'interlock-answer-elsewhere-')));
  agentWorkspace = join(root, 'agent');
  answererDirectory = join(root, 'inbox');
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** An agent's Write waiting for a person, asked by a process whose workspace is `workspace`; its store is a SQLite file. */
async function askedIn(workspace: string, id: string): Promise<{ asker: Interlock; store: string }> {
  const store = join(root, `${id}.db`);
  const asker = await createInterlock({
    store: { type: 'sqlite', path: store },
    toolFallback: (name) => agentTool(name, workspace),
    workspaceRoot: workspace,
  });
  const outcome = await (
    await asker.start(asker.registerWorkflow(agentWrite(id, join(workspace, 'notes.md'))), { channel: 'mcp' })
  ).done();
  expect(outcome.status).toBe('waiting');
  return { asker, store };
}

/** Answers from another process, started in `cwd`. */
async function answerFrom(cwd: string, store: string, answer: unknown) {
  const { stdout } = await promisify(execFile)(process.execPath, [ANSWER, store, JSON.stringify(answer)], { cwd });
  return JSON.parse(stdout) as { cwd: string; status?: string; code?: string; message?: string };
}

describe("an agent's edit answered from a process whose working directory is not the agent's (issue 28, 29)", () => {
  it('records the workspace the agent asked in on the question, and takes an edit to an absolute path inside it', async () => {
    const workspace = await mkdtemp(`${agentWorkspace}-`);
    const answerer = await mkdtemp(`${answererDirectory}-`);
    const { asker, store } = await askedIn(workspace, 'inside');
    try {
      const [question] = await asker.pending();
      expect(question?.metadata).toEqual({ workspaceRoot: workspace });
      const edited = { file_path: join(workspace, 'docs', 'final.md'), content: 'final' };
      const result = await answerFrom(answerer, store, { approved: true, editedParameters: edited });
      expect(result).toEqual({ cwd: answerer, status: 'accepted' });
      const [record] = await asker.interactions({ status: 'responded' });
      expect(record?.response?.input).toMatchObject({ approved: true, editedParameters: edited });
    } finally {
      await asker.close();
    }
  }, 60_000);

  it.each([
    { name: "the answerer's own directory", path: (_workspace: string, answerer: string) => join(answerer, 'x.md') },
    { name: 'a system file', path: () => '/etc/cron.d/job' },
    { name: 'a path that climbs out of it', path: (workspace: string) => `${workspace}/../x.md` },
  ])(
    'refuses an edit to $name, judged against the agent’s workspace, and the question stays open',
    async ({ path }) => {
      const workspace = await mkdtemp(`${agentWorkspace}-`);
      const answerer = await mkdtemp(`${answererDirectory}-`);
      const { asker, store } = await askedIn(workspace, `outside-${Math.random().toString(36).slice(2)}`);
      try {
        const result = await answerFrom(answerer, store, {
          approved: true,
          editedParameters: { file_path: path(workspace, answerer), content: 'x' },
        });
        expect(result).toMatchObject({
          code: 'INTERACTION_INVALID_RESPONSE',
          message: expect.stringContaining('path:outside-workspace'),
        });
        expect((await asker.pending()).length).toBe(1);
      } finally {
        await asker.close();
      }
    },
    60_000,
  );
});
