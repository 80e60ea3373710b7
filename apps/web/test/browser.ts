import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Where screenshots go (gitignored; CI keeps them as artifacts). */
export const TEST_RESULTS = fileURLToPath(new URL('../test-results/', import.meta.url));

/** Debian's chromium, headless; never a downloaded browser. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}

/** Opens the page in a fresh context (its own cookies) and signs in with `token`. */
export async function signedInPage(browser: Browser, baseUrl: string, token: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${baseUrl}/`);
  await page.getByLabel('Approver token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('.live.on').waitFor();
  return page;
}

export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(TEST_RESULTS, { recursive: true });
  const path = `${TEST_RESULTS}${name}.png`;
  await page.screenshot({ path, fullPage: true });
  return path;
}
