/**
 * @packageDocumentation
 * Test helpers of the chat packages (`@interlock/chat/testing`): a chat agent whose one tool
 * always asks, for the messaging platforms' end-to-end tests.
 */
export { createDeployChat, deployChatParts, nextEvent, HOSTILE_NOTE } from './deploy-chat.js';
