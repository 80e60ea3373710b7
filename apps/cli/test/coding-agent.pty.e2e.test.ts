import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BUILT_CLI, REPOSITORY_ROOT } from './built-cli.js';
import { assertTmux, startTerminal, type TmuxTerminal } from './tmux-session.js';

const DEMO = `"${process.execPath}" "${BUILT_CLI}" demo coding-agent`;
const BATCH_MENU = '? How do you want to answer them?';
const WRITE_PROMPT = '? Allow write_file to run with these arguments?';
const BASH_PROMPT = '? Allow bash to run with these arguments?';
const EXITED = /\[exit code \d+\]/;

beforeAll(() => {
  assertTmux();
  assertBuilt();
});

/** The workspace the demo printed. */
function workspaceOn(screen: string): string {
  const directory = /Workspace: (\S+)/.exec(screen)?.[1];
  if (directory === undefined) throw new Error(`no "Workspace:" line on the screen:\n${screen}`);
  return directory;
}

/** The part of the screen after the last occurrence of `marker`. */
function after(screen: string, marker: string): string {
  const index = screen.lastIndexOf(marker);
  return index === -1 ? '' : screen.slice(index);
}

describe('interlock demo coding-agent in a real terminal', () => {
  let session: TmuxTerminal | undefined;
  let workspace: string | undefined;
  afterEach(async () => {
    await session?.kill();
    session = undefined;
    if (workspace !== undefined) await rm(workspace, { recursive: true, force: true });
    workspace = undefined;
  });

  /** Starts the demo and answers the batch menu with "One by one" (the default). */
  async function startOneByOne(command = DEMO): Promise<string> {
    session = await startTerminal(command, REPOSITORY_ROOT);
    const menu = await session.waitFor((screen) => screen.includes(BATCH_MENU) && screen.includes('❯ One by one'));
    workspace = workspaceOn(menu);
    await session.sendKeys('Enter');
    return session.waitFor(
      (screen) => screen.includes(WRITE_PROMPT) && after(screen, WRITE_PROMPT).includes('❯ Approve'),
    );
  }

  /** At the bash prompt: Reject, with a reason; the run then completes. */
  async function rejectBash(reason: string): Promise<string> {
    await session?.sendKeys('Down', 'Down');
    await session?.waitFor((screen) => after(screen, BASH_PROMPT).includes('❯ Reject'));
    await session?.sendKeys('Enter');
    await session?.waitFor('? Reason, for the model');
    await session?.sendKeys('-l', reason);
    await session?.sendKeys('Enter');
    return (await session?.waitFor((text) => EXITED.test(text))) ?? '';
  }

  // Needs the shell rules: rm -rf / must be denied by policy, so only the write and the ls ask.
  it('approves the write with Enter and rejects the ls with a reason, then completes', async () => {
    const asking = await startOneByOne();
    expect(asking).toContain('2 tool calls wait for you:');
    expect(asking).toContain('Tool call (1 of 2): write_file');
    expect(asking).toContain('"path": "NOTES.md",');
    expect(after(asking, WRITE_PROMPT)).toContain('Approve and remember for this session');
    await session?.sendKeys('Enter');
    await session?.waitFor(
      (screen) => screen.includes(BASH_PROMPT) && after(screen, BASH_PROMPT).includes('❯ Approve'),
    );
    await session?.sendKeys('Down', 'Down');
    await session?.waitFor((screen) => after(screen, BASH_PROMPT).includes('❯ Reject'));
    await session?.sendKeys('Enter');
    await session?.waitFor('? Reason, for the model');
    await session?.sendKeys('-l', 'not today');
    await session?.sendKeys('Enter');
    const screen = (await session?.waitFor((text) => EXITED.test(text))) ?? '';
    expect(screen).toMatch(/✔ Allow write_file to run with these arguments\? .*Approve/);
    expect(screen).toMatch(/✔ Reason, for the model .*not today/);
    expect(screen).toMatch(/bash\(rm -rf \/\) → deny \(rule shell:banned:[a-z-]+\)/);
    expect(screen).toContain('Refused: bash `ls -la` (the user rejected it: not today)');
    expect(screen).toContain('[exit code 0]');
    expect(await readFile(join(workspaceOn(screen), 'NOTES.md'), 'utf8')).toContain('# Notes');
  });

  it('rejects the call and stops with exit code 130 when Ctrl+C is pressed at its approval', async () => {
    await startOneByOne();
    await session?.sendKeys('C-c');
    const screen = (await session?.waitFor((text) => EXITED.test(text))) ?? '';
    expect(screen).toContain('write_file(NOTES.md) answered by terminal: rejected: interrupted');
    expect(screen).toMatch(
      /Interrupted: the write_file call was rejected and the run stopped; the thread is left waiting \(thread [0-9a-f-]{36}\)/,
    );
    expect(screen).toContain('[exit code 130]');
    expect(screen).not.toContain(BASH_PROMPT);
    expect(screen).not.toContain('✔ completed');
    expect(await readdir(workspace ?? '')).toEqual(['README.md']);
  });

  it('rejects every call of the batch at once with a reason, and the model is told', async () => {
    session = await startTerminal(DEMO, REPOSITORY_ROOT);
    const menu = await session.waitFor((screen) => screen.includes(BATCH_MENU) && screen.includes('❯ One by one'));
    workspace = workspaceOn(menu);
    await session.sendKeys('Down', 'Down');
    await session.waitFor('❯ Reject all');
    await session.sendKeys('Enter');
    await session.waitFor('? Reason, for the model');
    await session.sendKeys('-l', 'not now');
    await session.sendKeys('Enter');
    const screen = await session.waitFor((text) => EXITED.test(text));
    expect(screen).toContain('  write_file: rejected: not now');
    expect(screen).toContain('Done. Ran: read_file README.md.');
    expect(screen).toContain(
      'Refused: write_file NOTES.md (the user rejected it: not now); bash `ls -la` (the user rejected it: not now)',
    );
    expect(screen).toContain('[exit code 0]');
    expect(await readdir(workspace)).toEqual(['README.md']);
  });

  it("edits the arguments inline, re-asking with the engine's error until they are valid", async () => {
    // Without VISUAL or EDITOR the arguments are edited on one line.
    await startOneByOne(`VISUAL= EDITOR= ${DEMO}`);
    const chooseEdit = async (): Promise<void> => {
      await session?.sendKeys('Down', 'Down');
      await session?.waitFor((screen) => after(screen, WRITE_PROMPT).includes('❯ Edit arguments'));
      await session?.sendKeys('Enter');
      await session?.waitFor((screen) => after(screen, '? Arguments as JSON').includes('{"path":"NOTES.md"'));
    };
    await chooseEdit();
    // Enter on the unchanged arguments goes back to the choices.
    await session?.sendKeys('Enter');
    await session?.waitFor((screen) => after(screen, 'no change: back to the choices').includes('❯ Approve'));
    await chooseEdit();
    await session?.sendKeys('C-u');
    await session?.sendKeys('-l', '{"path":"edited.md"}');
    await session?.sendKeys('Enter');
    const refused = (await session?.waitFor('do not match the schema of write_file')) ?? '';
    expect(refused).toContain('content');
    await session?.sendKeys('C-u');
    await session?.sendKeys('-l', '{"path":"edited.md","content":"by hand"}');
    await session?.sendKeys('Enter');
    await session?.waitFor(
      (screen) => screen.includes(BASH_PROMPT) && after(screen, BASH_PROMPT).includes('❯ Approve'),
    );
    const screen = await rejectBash('no');
    expect(screen).toContain(
      'write_file(NOTES.md) answered by terminal: approved with edited arguments {"path":"edited.md","content":"by hand"}',
    );
    expect(screen).toContain('[exit code 0]');
    expect(await readFile(join(workspace ?? '', 'edited.md'), 'utf8')).toBe('by hand');
  });

  it('edits the arguments in $EDITOR when it is set', async () => {
    await startOneByOne(`VISUAL= EDITOR="sed -i s/NOTES/EDITED/" ${DEMO}`);
    await session?.sendKeys('Down', 'Down');
    await session?.waitFor((screen) => after(screen, WRITE_PROMPT).includes('❯ Edit arguments'));
    await session?.sendKeys('Enter');
    await session?.waitFor(
      (screen) => screen.includes(BASH_PROMPT) && after(screen, BASH_PROMPT).includes('❯ Approve'),
    );
    const screen = await rejectBash('no');
    expect(screen).toContain('opening the arguments in sed -i s/NOTES/EDITED/');
    expect(screen).toMatch(/approved with edited arguments \{"path":"EDITED\.md"/);
    expect(screen).toContain('[exit code 0]');
    expect(await readFile(join(workspace ?? '', 'EDITED.md'), 'utf8')).toContain('# Notes');
  });
  it('adds an instruction for the model with the approval, and the model follows it', async () => {
    await startOneByOne();
    // Approve, Approve and remember, Edit, Reject, Add an instruction.
    await session?.sendKeys('Down', 'Down', 'Down', 'Down');
    await session?.waitFor((screen) => after(screen, WRITE_PROMPT).includes('❯ Add an instruction for the model'));
    await session?.sendKeys('Enter');
    await session?.waitFor('? Instruction for the model');
    await session?.sendKeys('-l', 'keep the notes short');
    await session?.sendKeys('Enter');
    await session?.waitFor(
      (screen) =>
        screen.includes('? Approve or reject the call together with the instruction?') &&
        screen.includes('❯ Approve the call'),
    );
    await session?.sendKeys('Enter');
    await session?.waitFor(
      (screen) => screen.includes(BASH_PROMPT) && after(screen, BASH_PROMPT).includes('❯ Approve'),
    );
    const screen = await rejectBash('no');
    expect(screen).toContain(
      'write_file(NOTES.md) answered by terminal: approved, with an instruction for the model: keep the notes short',
    );
    expect(screen).toContain('Noted your instruction: "keep the notes short".');
    expect(screen).toContain('[exit code 0]');
    expect(await readFile(join(workspace ?? '', 'NOTES.md'), 'utf8')).toContain('# Notes');
  });

  it('counts down the time left to answer and refuses the calls when it runs out (approvalTimeout)', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'interlock-pty-timeout-'));
    workspace = directory;
    await mkdir(join(directory, 'workspace'));
    await writeFile(join(directory, 'workspace', 'README.md'), '# A project\n');
    const definition = await readFile(join(REPOSITORY_ROOT, 'examples', 'workflows', 'coding-agent.toml'), 'utf8');
    // An edited workflow gets a new version: the store keeps threads bound to the content they started with.
    const edited = definition
      .replace('approvalTimeout = "5m"', 'approvalTimeout = "5s"')
      .replace('version = "1"', 'version = "1-timeout-5s"');
    await writeFile(join(directory, 'coding-agent.toml'), edited);
    session = await startTerminal(
      `"${process.execPath}" "${BUILT_CLI}" run coding-agent.toml --workspace workspace`,
      directory,
    );
    // The countdown as last drawn (earlier draws may still be on the screen above it).
    const secondsLeft = (screen: string): number | undefined => {
      const draws = [...screen.matchAll(/answer them\? · (\d) s left/g)];
      const last = draws.at(-1);
      return last === undefined ? undefined : Number(last[1]);
    };
    const first = secondsLeft(await session.waitFor((screen) => secondsLeft(screen) !== undefined)) ?? 0;
    await session.waitFor((screen) => (secondsLeft(screen) ?? first) < first);
    const screen = await session.waitFor((text) => EXITED.test(text), 15_000);
    expect(screen).toContain('write_file(NOTES.md) ✘ TIMEOUT: Nobody approved this call in time, so it was not run.');
    expect(screen).toContain(
      'Refused: write_file NOTES.md (nobody approved it in time); bash `ls -la` (nobody approved it in time)',
    );
    expect(screen).toContain('[exit code 0]');
    expect(await readdir(join(directory, 'workspace'))).toEqual(['README.md']);
  });
});
