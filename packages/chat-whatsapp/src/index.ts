/**
 * @packageDocumentation
 * WhatsApp as an approval channel (F57): the chat channel of `@interlock/chat` on the Cloud
 * API's webhooks and messages endpoint. See README.md and docs/chat.md.
 */
export { startWhatsAppConnector, type WhatsAppConnector, type WhatsAppConnectorOptions } from './whatsapp-connector.js';
export { WhatsAppPlatform, SERVICE_WINDOW_MS, buttonId, type WhatsAppTemplate } from './whatsapp-platform.js';
export { readWebhook, type WebhookMessage } from './whatsapp-webhook.js';
