/**
 * @packageDocumentation
 * A local WhatsApp Cloud API for tests (`@interlock/chat-whatsapp/testing`): the Graph API's
 * messages endpoint the connector calls, and webhooks signed as Meta signs them.
 */
export { FakeWhatsApp, postWebhook, webhookOf, type SentMessage } from './fake-whatsapp.js';
