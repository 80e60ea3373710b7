/**
 * @packageDocumentation
 * A local Feishu / Lark Open API for tests (`@interlock/chat-feishu/testing`): the calls the
 * connector makes, and events and card callbacks signed as Feishu signs them.
 */
export { FakeFeishu, cardAction, messageEvent, postCallback, type FeishuCall } from './fake-feishu.js';
