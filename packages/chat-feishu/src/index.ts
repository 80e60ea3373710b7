/**
 * @packageDocumentation
 * Feishu / Lark as an approval channel (F57): the chat channel of `@interlock/chat` on the
 * official Node SDK, over verified callbacks or the long connection. See README.md and docs/chat.md.
 */
export {
  startFeishuConnector,
  type FeishuConnector,
  type FeishuConnectorOptions,
  type FeishuTransport,
} from './feishu-connector.js';
export { FeishuPlatform, cardOf, EDIT_INPUT, type FeishuActionValue } from './feishu-platform.js';
export { verifyFeishuRequest, type FeishuSignatureHeaders } from './feishu-signature.js';
export { messageOf, cardActionOf, type FeishuEvent } from './feishu-events.js';
