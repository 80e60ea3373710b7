import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, screenshot, signedInPage } from './browser.js';
import { eventually, request, signIn, startHarness, type WebHarness } from './web-harness.js';

let browser: Browser;
let harness: WebHarness;

beforeAll(async () => {
  [browser, harness] = await Promise.all([launchChromium(), startHarness()]);
});
afterAll(async () => {
  await browser?.close();
  await harness?.close();
});

/** Opens a new chat from the page; returns its thread id. */
async function newChat(page: Page): Promise<string> {
  await page.getByRole('link', { name: 'Chat' }).click();
  await page.getByRole('button', { name: 'New chat' }).click();
  await page.waitForURL(/#\/chat\/[0-9a-f-]{36}$/);
  const chatId = page.url().split('/').at(-1)!;
  await page.locator('.chat-entry.role-notice', { hasText: 'alice opened this chat.' }).waitFor();
  const thread = await eventually(async () =>
    (await harness.interlock.threads()).find((candidate) => candidate.session.chatId === chatId),
  );
  return thread.threadId;
}

async function say(page: Page, text: string): Promise<void> {
  await page.getByLabel('Message').fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
  await page.locator('.chat-entry.role-user .text', { hasText: text }).last().waitFor();
}

async function userMessagesOf(threadId: string): Promise<string[]> {
  const thread = await harness.store.getThread(threadId);
  return (thread?.conversation ?? []).filter((message) => message.role === 'user').map((message) => message.content);
}

describe('the chat view', () => {
  it('takes a "yes" as the answer to the pending approval, never as a message to the agent; another message reaches the agent', async () => {
    const page = await signedInPage(browser, harness.baseUrl, harness.tokens['alice']!);
    const threadId = await newChat(page);
    await say(page, 'write the notes');
    await page.locator('.chat-entry.role-approval.approval-pending').waitFor();
    await say(page, 'yes');
    await page.locator('.chat-entry.role-approval.approval-approved', { hasText: 'approved by alice' }).waitFor();
    await expect(
      eventually(() => readFile(join(harness.directory, 'NOTES.md'), 'utf8').catch(() => undefined)),
    ).resolves.toContain('Talked with the chat agent');
    await say(page, 'hello there');
    await page.locator('.chat-entry.role-assistant', { hasText: 'You said: "hello there"' }).waitFor();
    await screenshot(page, 'chat');
    expect(await userMessagesOf(threadId)).toEqual(['write the notes', 'hello there']);
    const audit = await harness.interlock.audit({ threadId });
    expect(audit.find((entry) => entry.decidedBy === 'person')?.responder).toBe('alice');
    await page.context().close();
  });

  it('asks which one when a bare "yes" arrives while two approvals wait, and changes nothing', async () => {
    const page = await signedInPage(browser, harness.baseUrl, harness.tokens['alice']!);
    const threadId = await newChat(page);
    await say(page, 'write the notes and write the todo');
    await expect.poll(() => page.locator('.chat-entry.approval-pending').count()).toBe(2);
    await say(page, 'yes');
    await page.locator('.chat-entry.role-notice', { hasText: '2 tool calls are waiting. Which one?' }).waitFor();
    expect(await page.locator('.chat-entry.approval-pending').count()).toBe(2);
    expect(
      (await harness.interlock.pending()).filter(
        (pending) => pending.threadId === threadId && pending.operationType === 'TOOL_APPROVAL',
      ),
    ).toHaveLength(2);
    await screenshot(page, 'chat-which-one');
    await say(page, 'yes all');
    await expect.poll(() => page.locator('.chat-entry.approval-approved').count()).toBe(2);
    expect(await userMessagesOf(threadId)).toEqual(['write the notes and write the todo']);
    await page.context().close();
  });
});

describe('the chat API', () => {
  it('needs the CSRF token to send a message, and 404s an unknown chat', async () => {
    const { cookie, csrf } = await signIn(harness, 'alice');
    const opened = await request(harness, '/api/chats', { cookie, csrf, method: 'POST' });
    expect(opened.status).toBe(201);
    const path = `/api/chats/${opened.body.chatId}/messages`;
    expect((await request(harness, path, { cookie, body: { text: 'hello' } })).body.code).toBe('CSRF_REJECTED');
    const sent = await request(harness, path, { cookie, csrf, body: { text: 'hello' } });
    expect(sent.body.result).toEqual({ kind: 'agent', queued: expect.any(Boolean) });
    expect((await request(harness, '/api/chats/nope/messages', { cookie })).body.code).toBe('CHAT_NOT_FOUND');
  });
});
