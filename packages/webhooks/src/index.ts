export { type DeliveryOptions, deliverDue, retryDelayMs } from "./deliver.ts";
export { type NewDelivery, recordDeliveries } from "./outbox.ts";
export { newWebhookSecret, rotateWebhookSecret, webhookSecret } from "./secret.ts";
