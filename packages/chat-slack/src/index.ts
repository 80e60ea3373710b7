/**
 * @packageDocumentation
 * Slack as an approval channel (F57): the chat channel of `@interlock/chat` on Bolt, over
 * HTTP (verified signing) or Socket Mode. See README.md and docs/chat.md.
 */
export {
  startSlackConnector,
  type SlackConnector,
  type SlackConnectorOptions,
  type SlackTransport,
} from './slack-connector.js';
export { SlackPlatform, SLACK_ACTIONS, blocksOf, escapeSlackText } from './slack-platform.js';
export { verifySlackRequest, type SlackSignatureHeaders } from './slack-signature.js';
