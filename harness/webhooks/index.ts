/** Webhook deliveries judged against the spec: shared by `webhooks listen` and the conformance run. */
export { DeliveryCollector, type CollectorOptions } from './collector.ts';
export { webhookChecks } from './checks.ts';
export { isDateTime, judgeDelivery, WEBHOOK_CHECKS, type DeliveryJudgement, type IncomingDelivery, type WebhookCheckId } from './delivery.ts';
