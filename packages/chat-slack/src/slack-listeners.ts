import type { ChatChannel, ChatPlatformBridge } from '@interlock/chat';
import type { App, BlockAction, ButtonAction, ViewSubmitAction } from '@slack/bolt';
import { SLACK_ACTIONS, type SlackPlatform } from './slack-platform.js';

interface Listeners {
  bridge: ChatPlatformBridge;
  platform: SlackPlatform;
  chat: ChatChannel;
  warn: (message: string) => void;
}

/**
 * What the connector does with Slack's events and interactions. Each is acknowledged at
 * once (Bolt acknowledges events itself; actions here, first) and carried out afterwards:
 * Slack's 3-second limit never waits for the store or the agent. A conversation's messages
 * are handed to the bridge in the order Slack delivered them.
 */
export function registerSlackListeners(app: App, { bridge, platform, chat, warn }: Listeners): void {
  const report = (what: string) => (error: unknown) =>
    warn(`Slack: ${what} failed: ${error instanceof Error ? error.message : String(error)}`);

  app.event('message', async ({ event }) => {
    // People's new messages only: not edits, deletions, joins or bots (the connector's own among them).
    if (event.subtype !== undefined || !('user' in event) || typeof event.user !== 'string') return;
    const text = typeof event.text === 'string' ? event.text : '';
    const replyTo = 'thread_ts' in event && typeof event.thread_ts === 'string' ? event.thread_ts : undefined;
    bridge.message({ conversation: event.channel, user: event.user, text, replyTo }).catch(report('a message'));
  });

  for (const action of ['approve', 'reject'] as const) {
    app.action<BlockAction<ButtonAction>>(SLACK_ACTIONS[action], async ({ ack, body, action: button }) => {
      await ack();
      const conversation = body.channel?.id;
      if (conversation === undefined) return;
      bridge
        .action({ conversation, user: body.user.id, interactionId: button.value ?? '', action })
        .catch(report(`the ${action} button`));
    });
  }

  app.action<BlockAction<ButtonAction>>(SLACK_ACTIONS.edit, async ({ ack, body, action: button }) => {
    await ack();
    const conversation = body.channel?.id;
    const interactionId = button.value ?? '';
    if (conversation === undefined) return;
    void (async () => {
      const request = (await chat.pendingApprovals(bridge.chatIdOf(conversation))).find(
        (candidate) => candidate.interactionId === interactionId,
      );
      if (request?.toolApproval === undefined) {
        await platform.notify(conversation, body.user.id, 'That approval is no longer waiting: nothing to edit.');
        return;
      }
      await platform.openEdit(body.trigger_id, conversation, {
        interactionId,
        toolName: request.toolApproval.toolName,
        argumentsJson: JSON.stringify(request.toolApproval.toolParameters, null, 2),
      });
    })().catch(report('the edit button'));
  });

  app.view<ViewSubmitAction>(SLACK_ACTIONS.editView, async ({ ack, body, view }) => {
    let meta: { conversation?: unknown; interactionId?: unknown } = {};
    try {
      meta = JSON.parse(view.private_metadata) as typeof meta;
    } catch {
      // Unreadable metadata: refused below.
    }
    const argumentsText = view.state.values[SLACK_ACTIONS.editBlock]?.[SLACK_ACTIONS.editInput]?.value ?? '';
    if (typeof meta.conversation !== 'string' || typeof meta.interactionId !== 'string') {
      await ack({
        response_action: 'errors',
        errors: { [SLACK_ACTIONS.editBlock]: 'This form is not one Interlock opened.' },
      });
      return;
    }
    const outcome = await bridge.action({
      conversation: meta.conversation,
      user: body.user.id,
      interactionId: meta.interactionId,
      action: 'edit',
      argumentsText,
    });
    if (outcome.kind === 'decided') await ack();
    else
      await ack({
        response_action: 'errors',
        errors: { [SLACK_ACTIONS.editBlock]: outcome.text.slice(0, 2000) },
      });
  });
}
