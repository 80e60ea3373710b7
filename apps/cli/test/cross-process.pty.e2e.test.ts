import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BUILT_CLI } from './built-cli.js';
import { cliIn, createWorkingDirectory, EXAMPLES, jsonOf, pendingIn, type Detached } from './cross-process.js';
import { assertTmux, startTerminal, type TmuxTerminal } from './tmux-session.js';

const CLI = `"${process.execPath}" "${BUILT_CLI}"`;
const PLAN_PROMPT = '? Go ahead with this plan?';
const BASH_PROMPT = '? Allow bash to run with these arguments?';
const EXITED = /\[exit code \d+\]/;
/** The sessions run on the default store of their working directory. */
const DEFAULT_STORE = {};

beforeAll(() => {
  assertTmux();
  assertBuilt();
});

/** The part of the screen after the last occurrence of `marker`. */
function after(screen: string, marker: string): string {
  const index = screen.lastIndexOf(marker);
  return index === -1 ? '' : screen.slice(index);
}

describe('threads taken forward in another real terminal', () => {
  const sessions: TmuxTerminal[] = [];
  const directories: string[] = [];
  async function start(command: string, directory: string): Promise<TmuxTerminal> {
    const session = await startTerminal(command, directory, DEFAULT_STORE);
    sessions.push(session);
    return session;
  }
  async function workingDirectory(): Promise<string> {
    const directory = await createWorkingDirectory('interlock-pty-cross-process-');
    directories.push(directory);
    return directory;
  }
  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((session) => session.kill()));
  });
  afterAll(async () => {
    await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })));
  });

  it('resumes a run interrupted with Ctrl+C in a second terminal, which asks again and finishes it', async () => {
    const directory = await workingDirectory();
    const first = await start(`${CLI} run ${EXAMPLES.planApproval}`, directory);
    await first.waitFor((screen) => screen.includes(PLAN_PROMPT) && screen.includes('❯ yes'));
    await first.sendKeys('C-c');
    const stopped = await first.waitFor((screen) => EXITED.test(screen));
    expect(stopped).toContain('[exit code 130]');
    const threadId = /Interrupted: the thread is left waiting \(thread ([0-9a-f-]{36})\)/.exec(stopped)?.[1];
    expect(threadId).toBeDefined();
    expect(stopped).toContain(`interlock resume ${threadId}`);

    const second = await start(`${CLI} resume ${threadId}`, directory);
    const asking = await second.waitFor((screen) => screen.includes(PLAN_PROMPT) && screen.includes('❯ yes'));
    expect(asking).toContain(`Thread ${threadId} resumed`);
    expect(asking).toContain('1. Read the code it touches');
    await second.sendKeys('Enter');
    const screen = await second.waitFor((text) => EXITED.test(text));
    expect(screen).toContain('✔ Go ahead with this plan? yes');
    expect(screen).toContain('Done: carried out the approved plan');
    expect(screen).toMatch(/✔ completed · \d+ steps? · thread /);
    expect(screen).toContain('[exit code 0]');
    expect(await pendingIn(directory)).toEqual([]);
  });

  it("asks the thread's next question in the terminal that answered with interlock respond", async () => {
    const directory = await workingDirectory();
    const workspace = join(directory, 'workspace');
    await mkdir(workspace);
    await writeFile(join(workspace, 'README.md'), '# A project\n');
    const detached = jsonOf<Detached>(
      await cliIn(directory, ['run', EXAMPLES.codingAgent, '--detach', '--workspace', workspace, '--json']),
    );
    expect(detached.status).toBe('waiting');
    const write = (await pendingIn(directory)).find((request) => request.toolApproval?.toolName === 'write_file');

    const session = await start(`${CLI} respond ${write?.interactionId ?? ''} approve`, directory);
    await session.waitFor((screen) => screen.includes(BASH_PROMPT) && after(screen, BASH_PROMPT).includes('❯ Approve'));
    await session.sendKeys('Down', 'Down');
    await session.waitFor((screen) => after(screen, BASH_PROMPT).includes('❯ Reject'));
    await session.sendKeys('Enter');
    await session.waitFor('? Reason, for the model');
    await session.sendKeys('-l', 'not here');
    await session.sendKeys('Enter');
    const screen = await session.waitFor((text) => EXITED.test(text));
    expect(screen).toContain('✓ approved (interaction');
    expect(screen).toContain('write_file(NOTES.md) ✔ SUCCESS');
    expect(screen).toContain('Refused: bash `ls -la` (the user rejected it: not here)');
    expect(screen).toContain('[exit code 0]');
    expect(await readFile(join(workspace, 'NOTES.md'), 'utf8')).toContain('# Notes');
  });
  it('shows the thread finishing in the terminal that asked when interlock respond answers from another process', async () => {
    const directory = await workingDirectory();
    const first = await start(`${CLI} run ${EXAMPLES.planApproval}`, directory);
    await first.waitFor((screen) => screen.includes(PLAN_PROMPT) && screen.includes('❯ yes'));
    const [question] = await pendingIn(directory);
    expect(question).toBeDefined();

    const answered = await cliIn(directory, ['respond', question?.interactionId ?? '', 'answer', 'yes']);
    expect(answered.exitCode).toBe(0);
    expect(answered.stdout).toMatch(
      /stored for interaction [0-9a-f-]{36}; another process is taking thread [0-9a-f-]{36} forward/,
    );
    const screen = await first.waitFor((text) => EXITED.test(text));
    expect(screen).toMatch(/✓ answered by \S+: "yes"/);
    expect(screen).toContain('Done: carried out the approved plan');
    expect(screen).toMatch(/✔ completed · \d+ steps? · thread /);
    expect(screen).toContain('[exit code 0]');
  });
});
