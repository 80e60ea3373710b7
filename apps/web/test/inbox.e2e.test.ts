import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium, screenshot, signedInPage } from './browser.js';
import { startHarness, type WebHarness } from './web-harness.js';

let browser: Browser;
let harness: WebHarness;

beforeAll(async () => {
  [browser, harness] = await Promise.all([launchChromium(), startHarness()]);
});
afterAll(async () => {
  await browser?.close();
  await harness?.close();
});

describe('the inbox page', () => {
  it('shows a card per pending call with its tool, risk, rule and exact arguments, invisible characters marked', async () => {
    const { approvals } = await harness.startReleaseAgent();
    const page = await signedInPage(browser, harness.baseUrl, harness.tokens['alice']!);
    const card = page.locator(`[data-interaction-id="${approvals[0]!.interactionId}"]`);
    await card.waitFor();
    await screenshot(page, 'inbox');
    await expect(card.locator('.tool').textContent()).resolves.toBe('write_file');
    await expect(card.locator('.rule').textContent()).resolves.toBe('ask:risk:MEDIUM');
    await expect(card.locator('.invisible-char').allTextContents()).resolves.toEqual(['⟨U+202E⟩', '⟨U+200B⟩']);
    await page.context().close();
  });
});
