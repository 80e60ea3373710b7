import { secretFromEnvironment, type ChatChannel } from '@interlock/chat';
import { startFeishuConnector } from '@interlock/chat-feishu';
import { startSlackConnector, type SlackTransport } from '@interlock/chat-slack';
import { startWhatsAppConnector } from '@interlock/chat-whatsapp';
import type { ProjectChatConfig } from '@interlock/sdk-types';

/** The messaging platforms started for a chat channel. */
export interface ChatPlatforms {
  /** What each connector listens on, for the log (`Slack: http://…/slack/events`). */
  started: string[];
  stop(): Promise<void>;
}

/**
 * Starts the connectors `[chat]` of the project file configures (F57) for `chat`: Slack,
 * Feishu / Lark and WhatsApp, their secrets read from the environment variables the file names. Fails closed:
 * a missing secret stops the start (CHAT_PLATFORM_SECRET_MISSING, naming the variable).
 *
 * @example
 * const platforms = await startChatPlatforms(chat, project.config.chat);
 */
export async function startChatPlatforms(
  chat: ChatChannel,
  config: ProjectChatConfig | undefined,
  options: { environment?: NodeJS.ProcessEnv; warn?: (message: string) => void } = {},
): Promise<ChatPlatforms> {
  const environment = options.environment ?? process.env;
  const warn = options.warn ?? (() => undefined);
  const stops: (() => Promise<void>)[] = [];
  const started: string[] = [];
  const stop = async () => {
    for (const close of stops.splice(0).reverse()) await close();
  };
  try {
    const slack = config?.slack;
    if (slack !== undefined) {
      const transport: SlackTransport =
        slack.transport === 'http'
          ? {
              type: 'http',
              signingSecret: secretFromEnvironment(slack.signingSecretEnv, 'the Slack signing secret', environment),
              ...listen(slack),
            }
          : {
              type: 'socket',
              appToken: secretFromEnvironment(slack.appTokenEnv, 'the Slack app-level token', environment),
            };
      const connector = await startSlackConnector({
        chat,
        botToken: secretFromEnvironment(slack.botTokenEnv, 'the Slack bot token', environment),
        transport,
        approvers: slack.approvers,
        warn,
        ...(slack.apiUrl === undefined ? {} : { apiUrl: slack.apiUrl }),
        ...(slack.perMinute === undefined ? {} : { perMinute: slack.perMinute }),
      });
      stops.push(() => connector.stop());
      started.push(`Slack: ${connector.url ?? 'Socket Mode'}`);
    }
    const feishu = config?.feishu;
    if (feishu !== undefined) {
      const connector = await startFeishuConnector({
        chat,
        appId: feishu.appId,
        appSecret: secretFromEnvironment(feishu.appSecretEnv, 'the Feishu app secret', environment),
        transport:
          feishu.transport === 'http'
            ? {
                type: 'http',
                encryptKey: secretFromEnvironment(feishu.encryptKeyEnv, 'the Feishu encrypt key', environment),
                ...listen(feishu),
              }
            : { type: 'long-connection' },
        approvers: feishu.approvers,
        warn,
        ...(feishu.verificationTokenEnv === undefined
          ? {}
          : {
              verificationToken: secretFromEnvironment(
                feishu.verificationTokenEnv,
                'the Feishu verification token',
                environment,
              ),
            }),
        ...(feishu.domain === undefined ? {} : { domain: feishu.domain }),
        ...(feishu.perMinute === undefined ? {} : { perMinute: feishu.perMinute }),
      });
      stops.push(() => connector.stop());
      started.push(`Feishu: ${connector.url ?? 'long connection'}`);
    }
    const whatsapp = config?.whatsapp;
    if (whatsapp !== undefined) {
      const connector = await startWhatsAppConnector({
        chat,
        phoneNumberId: whatsapp.phoneNumberId,
        accessToken: secretFromEnvironment(whatsapp.accessTokenEnv, 'the WhatsApp access token', environment),
        appSecret: secretFromEnvironment(whatsapp.appSecretEnv, 'the WhatsApp app secret', environment),
        verifyToken: secretFromEnvironment(whatsapp.verifyTokenEnv, 'the WhatsApp verify token', environment),
        approvers: whatsapp.approvers,
        warn,
        ...listen(whatsapp),
        ...(whatsapp.approvalTemplate === undefined ? {} : { approvalTemplate: whatsapp.approvalTemplate }),
        ...(whatsapp.apiUrl === undefined ? {} : { apiUrl: whatsapp.apiUrl }),
        ...(whatsapp.perMinute === undefined ? {} : { perMinute: whatsapp.perMinute }),
      });
      stops.push(() => connector.stop());
      started.push(`WhatsApp: ${connector.url}`);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { started, stop };
}

/** The approver names the `[chat.*] approvers` maps give platform users: approvers of the chat (issue 37). */
export function chatApproverNames(config: ProjectChatConfig | undefined): string[] {
  const maps = [config?.slack?.approvers, config?.feishu?.approvers, config?.whatsapp?.approvers];
  return [...new Set(maps.flatMap((map) => Object.values(map ?? {})))];
}

function listen(config: { host?: string | undefined; port?: number | undefined; path?: string | undefined }) {
  return {
    ...(config.host === undefined ? {} : { host: config.host }),
    ...(config.port === undefined ? {} : { port: config.port }),
    ...(config.path === undefined ? {} : { path: config.path }),
  };
}
