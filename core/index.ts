/** The runtime-neutral core: `createApi` over a Kysely SQLite database, plus the contract types. */
export { createApi } from './api.ts';
export { DEFAULT_RATE_LIMITS, type Api, type ApiOptions, type ApiWebhooks, type RateLimits, type WebhookOptions } from './api-types.ts';
export { Admin, type IssuedKey, type IssueKeyOptions, type LoadOptions, type SiteInfo } from './admin/admin.ts';
export type { SimulationState, SimulationSwitch } from './admin/simulation.ts';
export { AdminError, type CompanyInput, type EventInput, type PersonInput, type VisitInput, type TimeInput } from './admin/inputs.ts';
export { ManualClock, systemClock, type Clock } from './time/clock.ts';
export { AdjustableClock, isMovable, type MovableClock } from './time/adjustable-clock.ts';
export { KEY_PREFIX } from './auth/api-key.ts';
export { atMountPoint, MOUNT_HEADER } from './http/mount.ts';
export type { CorsOptions } from './http/cors.ts';
export { Reply, ReplyHeaders, type CoreRequest, type HeaderReader } from './http/reply.ts';
export { webDigests, type Digests, type HmacSigner } from './crypto/digests.ts';
export type { KeyInfo } from './store/keys-store.ts';
export type { Database, Db } from './store/schema.ts';
export { ReadDatabaseNotReady } from './store/read-replica.ts';
export { HOT_LEADS, LAST_SEEN_AFTER, MAX_PAGE_SIZE } from './handlers/filters.ts';
export { DEFAULT_STATS_DAYS } from './handlers/stats.ts';
export * from './resources/types.ts';
export { generateWebhookSecret, signWebhook, webhookHeaders, verifyWebhook, secretProblem, SECRET_PREFIX, type Verification, type WebhookHeaders } from './webhooks/signing.ts';
export { RETRY_SCHEDULE_SECONDS, MAX_ATTEMPTS } from './webhooks/schedule.ts';
export {
  WebhookAdmin,
  DEFAULT_ROTATION_OVERLAP_SECONDS,
  type WebhookAttempt,
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookEndpointInput,
  type WebhookEndpointWithSecret,
} from './webhooks/webhook-admin.ts';
