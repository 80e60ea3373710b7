import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, screenshot, signedInPage } from './browser.js';
import { eventually, manualClock, startHarness, type WebHarness } from './web-harness.js';

/** Set to refresh docs/images/web-inbox.png from this run. */
const UPDATE_DOCS_IMAGES = process.env['INTERLOCK_UPDATE_DOCS_IMAGES'] === '1';
const DOCS_IMAGE = fileURLToPath(new URL('../../../docs/images/web-inbox.png', import.meta.url));

let browser: Browser;
let harness: WebHarness;

beforeAll(async () => {
  [browser, harness] = await Promise.all([launchChromium(), startHarness({ approvalTimeout: '10m' })]);
});
afterAll(async () => {
  await browser?.close();
  await harness?.close();
});

const card = (page: Page, interactionId: string) => page.locator(`.cards [data-interaction-id="${interactionId}"]`);
const settled = (page: Page, interactionId: string) =>
  page.locator(`.settled [data-interaction-id="${interactionId}"]`);

async function conversationOf(threadId: string): Promise<string> {
  const thread = await eventually(async () => {
    const record = await harness.store.getThread(threadId);
    return record?.status === 'completed' ? record : undefined;
  });
  return thread.conversation.map((message) => `${message.role}: ${message.content}`).join('\n');
}

describe('the inbox page', () => {
  it('shows each pending call with its tool, risk, rule, deadline and exact arguments, invisible characters marked', async () => {
    const { approvals } = await harness.startReleaseAgent();
    const page = await signedInPage(browser, harness.baseUrl, harness.tokens['alice']!);
    const write = card(page, approvals[0]!.interactionId);
    await write.waitFor();
    await expect(write.locator('.tool').textContent()).resolves.toBe('write_file');
    await expect(write.locator('.risk').textContent()).resolves.toBe('MEDIUM');
    await expect(write.locator('.rule').textContent()).resolves.toBe('ask:risk:MEDIUM');
    await expect(write.locator('.countdown').textContent()).resolves.toMatch(/^(10m 00s|9m \d\ds) left$/);
    await expect(write.locator('.arguments .invisible-char').allTextContents()).resolves.toEqual([
      '⟨U+202E⟩',
      '⟨U+200B⟩',
    ]);
    await expect(write.locator('.arguments .blank-run').allTextContents()).resolves.toEqual(['⟨120 spaces⟩']); // issue 13
    await expect(write.locator('.blank-warning').textContent()).resolves.toContain('1 long run of blanks');
    await expect(card(page, approvals[1]!.interactionId).locator('.risk').textContent()).resolves.toBe('HIGH');
    await expect(page.locator('.batch-bar .approve-batch').textContent()).resolves.toBe(
      'Approve all 2 calls of this turn',
    );
    const path = await screenshot(page, 'inbox');
    if (UPDATE_DOCS_IMAGES) {
      await mkdir(join(DOCS_IMAGE, '..'), { recursive: true });
      await copyFile(path, DOCS_IMAGE);
    }
    await page.context().close();
  });

  it('approves a call: it runs, and the card moves to "Recently settled" with who approved it', async () => {
    const { approvals } = await harness.startReleaseAgent();
    const page = await signedInPage(browser, harness.baseUrl, harness.tokens['alice']!);
    await card(page, approvals[0]!.interactionId).getByRole('button', { name: 'Approve', exact: true }).click();
    await settled(page, approvals[0]!.interactionId).filter({ hasText: 'approved by web:alice' }).waitFor();
    expect(await card(page, approvals[0]!.interactionId).count()).toBe(0);
    const written = await eventually(() =>
      readFile(join(harness.directory, 'RELEASE_NOTES.md'), 'utf8').catch(() => undefined),
    );
    expect(written).toContain('invoice\u202Efdp.exe');
    await screenshot(page, 'approved');
    await page.context().close();
  });

  it('edits the arguments: invalid JSON and a schema mismatch are shown and keep the editor open, valid JSON runs', async () => {
    const { approvals, threadId } = await harness.startReleaseAgent();
    const page = await signedInPage(browser, harness.baseUrl, harness.tokens['alice']!);
    const write = card(page, approvals[0]!.interactionId);
    await write.getByRole('button', { name: 'Edit arguments…' }).click();
    const editor = write.locator('.edit-arguments');
    await expect(editor.inputValue()).resolves.toContain('"path": "RELEASE_NOTES.md"');
    await editor.fill('{"path": "EDITED.md", ');
    await write.getByRole('button', { name: 'Approve with these arguments' }).click();
    await expect(write.locator('.edit-error').textContent()).resolves.toMatch(/^Not valid JSON/);
    await editor.fill('{"path": 7, "content": "clean notes"}');
    await write.getByRole('button', { name: 'Approve with these arguments' }).click();
    await expect(write.locator('.edit-error').textContent()).resolves.toBe(
      "Does not match the tool's schema: path: expected string, got a number",
    );
    await screenshot(page, 'edit-invalid');
    expect((await harness.interlock.pending()).map((request) => request.interactionId)).toContain(
      approvals[0]!.interactionId,
    );
    await editor.fill('{"path": "EDITED.md", "content": "clean notes"}');
    await write.getByRole('button', { name: 'Approve with these arguments' }).click();
    await settled(page, approvals[0]!.interactionId)
      .filter({ hasText: 'approved with edited arguments by web:alice' })
      .waitFor();
    await card(page, approvals[1]!.interactionId).getByRole('button', { name: 'Reject' }).click();
    await conversationOf(threadId);
    await expect(readFile(join(harness.directory, 'EDITED.md'), 'utf8')).resolves.toBe('clean notes');
    await page.context().close();
  });

  it('rejects with a reason the model is told, and adds an instruction to the conversation', async () => {
    const { approvals, threadId } = await harness.startReleaseAgent();
    const page = await signedInPage(browser, harness.baseUrl, harness.tokens['alice']!);
    const deploy = card(page, approvals[1]!.interactionId);
    await deploy.getByPlaceholder('Why you reject it').fill('deploy freeze until Monday');
    await deploy.getByRole('button', { name: 'Reject' }).click();
    await settled(page, approvals[1]!.interactionId)
      .filter({ hasText: 'rejected by web:alice (deploy freeze until Monday)' })
      .waitFor();
    const write = card(page, approvals[0]!.interactionId);
    await write.getByLabel('Instruction').fill('also update the changelog');
    await write.getByRole('button', { name: 'Approve', exact: true }).click();
    await settled(page, approvals[0]!.interactionId)
      .filter({ hasText: 'with the instruction "also update the changelog"' })
      .waitFor();
    const conversation = await conversationOf(threadId);
    expect(conversation).toContain('deploy freeze until Monday');
    expect(conversation).toContain('user: also update the changelog');
    await page.context().close();
  });

  it("shows two approvers each other's decisions live", async () => {
    const { approvals } = await harness.startReleaseAgent();
    const [alice, bob] = await Promise.all([
      signedInPage(browser, harness.baseUrl, harness.tokens['alice']!),
      signedInPage(browser, harness.baseUrl, harness.tokens['bob']!),
    ]);
    const [write, deploy] = approvals.map((approval) => approval.interactionId) as [string, string];
    await Promise.all([card(alice, write).waitFor(), card(bob, write).waitFor()]);
    await card(alice, write).getByRole('button', { name: 'Approve', exact: true }).click();
    await settled(bob, write).filter({ hasText: 'approved by web:alice' }).waitFor();
    expect(await card(bob, write).count()).toBe(0);
    await card(bob, deploy).getByPlaceholder('Why you reject it').fill('not from this branch');
    await card(bob, deploy).getByRole('button', { name: 'Reject' }).click();
    await settled(alice, deploy).filter({ hasText: 'rejected by web:bob (not from this branch)' }).waitFor();
    await screenshot(bob, 'two-approvers-bob');
    await screenshot(alice, 'two-approvers-alice');
    await Promise.all([alice.context().close(), bob.context().close()]);
  });

  it('approves all the calls of one model turn with one click', async () => {
    const { approvals, threadId } = await harness.startReleaseAgent();
    const page = await signedInPage(browser, harness.baseUrl, harness.tokens['alice']!);
    const bar = page.locator(`.batch-bar[data-batch-id="${threadId}/${approvals[0]!.toolApproval!.batch!.id}"]`);
    await bar.getByRole('button', { name: 'Approve all 2 calls of this turn' }).click();
    for (const approval of approvals)
      await settled(page, approval.interactionId).filter({ hasText: 'approved by web:alice' }).waitFor();
    expect(await bar.count()).toBe(0);
    await page.context().close();
  });

  it('tells an approver whose answer lost the race that it was already answered, and by whom', async () => {
    const { approvals } = await harness.startReleaseAgent();
    const page = await signedInPage(browser, harness.baseUrl, harness.tokens['bob']!);
    const write = card(page, approvals[0]!.interactionId);
    await write.waitFor();
    // Alice answers from a script between Bob's page loading the card and Bob clicking.
    await harness.interlock.respond(
      approvals[0]!.interactionId,
      { approved: false, denyReason: 'script' },
      { responder: 'web:alice' },
    );
    await write
      .getByRole('button', { name: 'Approve', exact: true })
      .click({ timeout: 2000 })
      .catch(() => undefined);
    const notice = page
      .locator('.notice')
      .filter({ hasText: /already answered by web:alice|web:alice answered/ })
      .first();
    await notice.waitFor();
    expect(await notice.textContent()).toMatch(/already answered by web:alice|web:alice answered/);
    const settledCard = settled(page, approvals[0]!.interactionId).filter({
      hasText: 'rejected by web:alice (script)',
    });
    await settledCard.waitFor();
    expect(await settledCard.textContent()).toContain('rejected by web:alice (script)');
    await page.context().close();
  });

  it('starts a workflow from the threads list and cancels it there', async () => {
    const page = await signedInPage(browser, harness.baseUrl, harness.tokens['alice']!);
    await page.getByRole('link', { name: 'Threads' }).click();
    const before = new Set((await harness.interlock.threads()).map((thread) => thread.threadId));
    await page.getByLabel('Workflow').selectOption('release-agent');
    await page.getByRole('button', { name: 'Start workflow' }).click();
    const started = await eventually(async () =>
      (await harness.interlock.threads()).find((thread) => !before.has(thread.threadId) && thread.status === 'waiting'),
    );
    const row = page.locator(`tr[data-thread-id="${started.threadId}"]`);
    await row.locator('.status-waiting').waitFor();
    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: 'Cancel thread' }).click();
    await row.locator('.status', { hasText: 'cancelled' }).waitFor();
    expect((await harness.interlock.pending()).filter((request) => request.threadId === started.threadId)).toEqual([]);
    await page.context().close();
  });

  it('shows the thread timeline with each decision and who made it, and a verified audit trail', async () => {
    const { approvals, threadId } = await harness.startReleaseAgent();
    await harness.interlock.respond(approvals[0]!.interactionId, { approved: true }, { responder: 'web:alice' });
    await harness.interlock.respond(
      approvals[1]!.interactionId,
      { approved: false, denyReason: 'no deploys' },
      { responder: 'web:bob' },
    );
    await conversationOf(threadId);
    const page = await signedInPage(browser, harness.baseUrl, harness.tokens['alice']!);
    await page.goto(`${harness.baseUrl}/#/threads/${threadId}`);
    await page.locator('.timeline-view .status-completed').waitFor();
    const entries = await page.locator('.timeline .entry').allTextContents();
    expect(entries.some((entry) => entry.includes('allowed write_file') && entry.includes('by web:alice'))).toBe(true);
    expect(
      entries.some((entry) => entry.includes('rejected; reason: no deploys') && entry.includes('by web:bob')),
    ).toBe(true);
    expect(entries.some((entry) => entry.includes('denied bash') && entry.includes('by shell:banned'))).toBe(true);
    await screenshot(page, 'timeline');
    await page.getByRole('link', { name: 'Audit' }).click();
    await expect(page.locator('.verdict.valid').textContent()).resolves.toMatch(/^✓ The hash chain is intact/);
    await expect(page.locator('.audit .decided-by').allTextContents()).resolves.toContain('web:bob');
    await screenshot(page, 'audit');
    await page.context().close();
  });
});

// A server of its own: each page load spends requests from the per-client rate limit, and the
// main one's sign-ins are near their limit of 10 a minute.
describe('on a second server', () => {
  let own: WebHarness;
  beforeAll(async () => {
    own = await startHarness();
  });
  afterAll(() => own?.close());

  describe('what the page says an answer came to (issue 28)', () => {
    it('says in its notice what the answer came to, as the server said it', async () => {
      const { approvals } = await own.startReleaseAgent();
      const page = await signedInPage(browser, own.baseUrl, own.tokens['alice']!);
      await card(page, approvals[0]!.interactionId).getByRole('button', { name: 'Approve', exact: true }).click();
      const notice = page
        .locator('.notice')
        .filter({ hasText: 'Your answer is stored; the thread goes on now.' })
        .first();
      await notice.waitFor();
      expect(await notice.textContent()).toContain('Your answer is stored; the thread goes on now.');
      await page.context().close();
    });
  });

  describe('the inbox page with a filter', () => {
    it('hides what a filter leaves out without saying it settled, and shows it again when the filter is cleared', async () => {
      const { approvals } = await own.startReleaseAgent();
      const [write, bash] = [approvals[0]!.interactionId, approvals[1]!.interactionId];
      const page = await signedInPage(browser, own.baseUrl, own.tokens['alice']!);
      await card(page, bash).waitFor();
      const looked = page.waitForResponse((response) => response.url().endsWith(`/api/interactions/${bash}`));
      await page.locator('.filter-tool').fill('write_file');
      await page.locator('.filter-tool').dispatchEvent('change');
      await card(page, bash).waitFor({ state: 'detached' });
      await looked; // the page asked where the hidden call stands: still pending
      // A call that did settle meanwhile still gets its line, after the hidden one's answer came.
      await card(page, write).getByRole('button', { name: 'Approve', exact: true }).click();
      await settled(page, write).filter({ hasText: 'approved by web:alice' }).waitFor();
      expect(await settled(page, bash).count()).toBe(0);
      await page.locator('.filter-tool').fill('');
      await page.locator('.filter-tool').dispatchEvent('change');
      await card(page, bash).waitFor();
      expect(await settled(page, bash).count()).toBe(0);
      await page.context().close();
    });
  });
});

describe('deadlines on the page', () => {
  const clock = manualClock();
  let timed: WebHarness;
  beforeAll(async () => {
    timed = await startHarness({ approvalTimeout: '2m', clock, pollInterval: 0 });
  });
  afterAll(() => timed?.close());

  it('counts down to the deadline and moves an expired call to "Recently settled" when it passes', async () => {
    const { approvals } = await timed.startReleaseAgent();
    const page = await signedInPage(browser, timed.baseUrl, timed.tokens['alice']!);
    const write = page.locator(`.cards [data-interaction-id="${approvals[0]!.interactionId}"]`);
    await expect(write.locator('.countdown').textContent()).resolves.toMatch(/^(2m 00s|1m \d\ds) left$/);
    clock.advance(121_000);
    await timed.app.liveUpdates.tick();
    await page
      .locator(`.settled [data-interaction-id="${approvals[0]!.interactionId}"]`)
      .filter({ hasText: 'expired — nobody answered before the deadline' })
      .waitFor();
    await page.context().close();
  });
});
