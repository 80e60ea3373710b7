/**
 * @packageDocumentation
 * Test helpers of the chat packages (`@interlock/chat/testing`): a chat agent whose one tool
 * always asks, for the messaging platforms' end-to-end tests, and what the platforms' fakes
 * share (the calls they recorded, to wait on; closing their server).
 */
export { createDeployChat, deployChatParts, nextEvent, HOSTILE_NOTE } from './deploy-chat.js';
export { closeServer, RecordedCalls } from './recorded-calls.js';
