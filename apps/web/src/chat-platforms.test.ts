import { createInterlock } from '@interlock/core';
import { ChatChannel, chatDemoModel, chatDemoTools, chatDemoWorkflow } from '@interlock/chat';
import { afterEach, describe, expect, it } from 'vitest';
import { postCallback } from '@interlock/chat-feishu/testing';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UserInteractionRequest } from '@interlock/sdk-types';
import { chatApproverNames, startChatPlatforms } from './chat-platforms.js';
import { ApproverDirectory, chatChecks } from './server/auth/approver-directory.js';
import { loadApprovers } from './server/auth/approvers-file.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function demoChat() {
  const interlock = await createInterlock({ models: { default: chatDemoModel() }, tools: chatDemoTools() });
  const chat = new ChatChannel({ interlock, workflow: interlock.registerWorkflow(chatDemoWorkflow()).id });
  closers.push(async () => {
    chat.close();
    await interlock.close();
  });
  return chat;
}

describe('the messaging platforms of interlock.toml (F57)', () => {
  it('refuses to start a connector whose secret is not in the environment, naming the variable and no value', async () => {
    const chat = await demoChat();
    const config = {
      slack: { transport: 'http' as const, botTokenEnv: 'SLACK_BOT', signingSecretEnv: 'SLACK_SIGNING', approvers: {} },
    };

    await expect(
      startChatPlatforms(chat, config, { environment: { SLACK_BOT: 'xoxb-secret-value' } }),
    ).rejects.toMatchObject({
      code: 'CHAT_PLATFORM_SECRET_MISSING',
      message: expect.stringContaining('SLACK_SIGNING'),
    });
    await expect(
      startChatPlatforms(chat, config, { environment: { SLACK_BOT: 'xoxb-secret-value' } }),
    ).rejects.not.toThrow(/xoxb-secret-value/);
  });

  it('starts the WhatsApp connector with the secrets the file names, and its webhook answers the handshake', async () => {
    const chat = await demoChat();
    const platforms = await startChatPlatforms(
      chat,
      {
        whatsapp: {
          phoneNumberId: '100',
          accessTokenEnv: 'WA_TOKEN',
          appSecretEnv: 'WA_SECRET',
          verifyTokenEnv: 'WA_VERIFY',
          approvers: { '15551230001': 'alice' },
          port: 0,
        },
      },
      { environment: { WA_TOKEN: 't', WA_SECRET: 's', WA_VERIFY: 'v' } },
    );
    closers.push(() => platforms.stop());
    const url = (platforms.started[0] ?? '').replace(/^WhatsApp: /, '');

    const response = await fetch(`${url}?hub.mode=subscribe&hub.verify_token=v&hub.challenge=ok`);
    expect(await response.text()).toBe('ok');
  });

  it('checks the Feishu verification token the file names: a callback without it is refused, one with it answered (F57)', async () => {
    const chat = await demoChat();
    const feishu = {
      transport: 'http' as const,
      appId: 'cli_0123456789abcdef',
      appSecretEnv: 'FEISHU_SECRET',
      encryptKeyEnv: 'FEISHU_KEY',
      verificationTokenEnv: 'FEISHU_TOKEN',
      approvers: {},
      port: 0,
    };
    const secrets = { FEISHU_SECRET: 's', FEISHU_KEY: 'the-key' };
    await expect(startChatPlatforms(chat, { feishu }, { environment: secrets })).rejects.toMatchObject({
      code: 'CHAT_PLATFORM_SECRET_MISSING',
      message: expect.stringContaining('FEISHU_TOKEN'),
    });
    const platforms = await startChatPlatforms(chat, { feishu }, { environment: { ...secrets, FEISHU_TOKEN: 'tok' } });
    closers.push(() => platforms.stop());
    const url = (platforms.started[0] ?? '').replace(/^Feishu: /, '');
    const challenge = (token: string) =>
      postCallback(
        url,
        { type: 'url_verification', challenge: 'c-1', token },
        { key: 'the-key', timestamp: Math.floor(Date.now() / 1000) },
      );

    expect(await challenge('guessed')).toEqual({ status: 401, body: { error: 'bad_token' } });
    expect(await challenge('tok')).toEqual({ status: 200, body: { challenge: 'c-1' } });
  });
});

describe('who answers in a messaging platform’s chat (issue 37)', () => {
  const whatsapp = {
    phoneNumberId: '106540352242922',
    accessTokenEnv: 'WHATSAPP_TOKEN',
    appSecretEnv: 'WHATSAPP_APP_SECRET',
    verifyTokenEnv: 'WHATSAPP_VERIFY_TOKEN',
    approvers: { '15551230001': 'alice' },
  };
  const request = (workflowId: string) =>
    ({
      workflowId,
      operationType: 'TOOL_APPROVAL',
      toolApproval: { riskLevel: 'MEDIUM' },
      session: { channel: 'chat' },
    }) as unknown as UserInteractionRequest;

  it('lets a name [chat.whatsapp] approvers maps a user to answer, as docs/chat.md shows, without the approvers file listing it', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'interlock-chat-approvers-'));
    closers.push(() => rm(directory, { recursive: true, force: true }));
    const path = join(directory, 'approvers.json');
    const approvers = ApproverDirectory.watch(path, await loadApprovers(path), () => undefined, 500, {
      chatApprovers: chatApproverNames({ whatsapp }),
    });
    closers.push(async () => approvers.close());
    const { canApprove, mayAnswer } = chatChecks(approvers);
    expect(canApprove('alice', 'support-chat')).toBe(true);
    expect(mayAnswer('alice', request('support-chat'), undefined)).toBeUndefined();
    expect(canApprove('mallory', 'support-chat')).toBe(false);
  });

  it('still applies the approver lists of a workflow to that name', () => {
    const approvers = ApproverDirectory.of({
      chatApprovers: ['alice'],
      workflowApprovers: { deploy: ['bob'] },
    });
    expect(chatChecks(approvers).mayAnswer('alice', request('deploy'), undefined)).toMatch(/not on the approver list/);
  });
});
