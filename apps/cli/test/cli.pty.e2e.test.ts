import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BUILT_CLI, REPOSITORY_ROOT } from './built-cli.js';
import { assertTmux, startTerminal, type TmuxTerminal } from './tmux-session.js';

const DEMO = `"${process.execPath}" "${BUILT_CLI}" demo`;
const PROMPT = '? Go ahead with this plan?';
const EXITED = /\[exit code \d+\]/;

beforeAll(() => {
  assertTmux();
  assertBuilt();
});

describe('interlock in a real terminal', () => {
  let session: TmuxTerminal | undefined;
  afterEach(async () => {
    await session?.kill();
    session = undefined;
  });

  it('approves the plan with Enter at the list prompt and shows the completed summary', async () => {
    session = await startTerminal(DEMO, REPOSITORY_ROOT);
    const asking = await session.waitFor((screen) => screen.includes(PROMPT) && screen.includes('❯ yes'));
    expect(asking).toContain('  1. Read the code it touches');
    await session.sendKeys('Enter');
    const screen = await session.waitFor((text) => EXITED.test(text));
    expect(screen).toContain('✔ Go ahead with this plan? yes');
    expect(screen).toContain('Done: carried out the approved plan');
    expect(screen).toMatch(/✔ completed · 6 steps · thread [0-9a-f-]{36}/);
    expect(screen).toContain('[exit code 0]');
  });

  it('says no with the arrow keys, gets a revised plan, and approves that', async () => {
    session = await startTerminal(DEMO, REPOSITORY_ROOT);
    await session.waitFor((screen) => screen.includes(PROMPT) && screen.includes('❯ yes'));
    await session.sendKeys('Down');
    await session.waitFor('❯ no');
    await session.sendKeys('Enter');
    await session.waitFor((screen) => {
      const revision = screen.indexOf('Revised plan (revision 1)');
      return revision !== -1 && screen.indexOf(PROMPT, revision) !== -1 && screen.includes('❯ yes', revision);
    });
    await session.sendKeys('Enter');
    const screen = await session.waitFor((text) => EXITED.test(text));
    expect(screen).toContain('✔ Go ahead with this plan? no');
    expect(screen).toContain('✔ Go ahead with this plan? yes');
    expect(screen).toMatch(/✔ completed · 10 steps/);
    expect(screen).toMatch(/Output:\nRevised plan \(revision 1\)/);
    expect(screen).toContain('[exit code 0]');
  });

  it('leaves the thread waiting and exits 130 when Ctrl+C is pressed at the prompt', async () => {
    session = await startTerminal(DEMO, REPOSITORY_ROOT);
    await session.waitFor((screen) => screen.includes(PROMPT) && screen.includes('❯ yes'));
    await session.sendKeys('C-c');
    const screen = await session.waitFor((text) => EXITED.test(text));
    expect(screen).toMatch(/Interrupted: the thread is left waiting \(thread [0-9a-f-]{36}\)/);
    expect(screen).toContain('[exit code 130]');
    expect(screen).not.toContain('✔ completed');
    expect(screen).not.toContain('› execute');
  });

  it('takes a typed answer to a text question and the next model call sees it', async () => {
    session = await startTerminal(
      `"${process.execPath}" "${BUILT_CLI}" run examples/workflows/ask-user.toml`,
      REPOSITORY_ROOT,
    );
    await session.waitFor('? Which cuisine do you like? (e.g. Sichuan)');
    await session.sendKeys('-l', 'Yunnan');
    await session.waitFor('? Which cuisine do you like? (e.g. Sichuan) Yunnan');
    await session.sendKeys('Enter');
    const screen = await session.waitFor((text) => EXITED.test(text));
    expect(screen).toContain('You said: "I like Yunnan food."');
    expect(screen).toContain('[exit code 0]');
  });
});
