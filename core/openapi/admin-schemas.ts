/**
 * The schemas of the admin routes (`/_admin/…`): what the admin surface answers over HTTP, and
 * the items loading takes (the loader's own schemas). The webhook endpoint and delivery schemas
 * are held equal to the admin surface's own types by tsc.
 */
import { JSON_INPUT_SCHEMAS, JSON_TIME } from '../admin/input-schemas.ts';
import { ALL_FAULTS } from '../faults/catalog.ts';
import { WEBHOOK_EVENT_KINDS } from '../resources/types.ts';
import type { SimulationState } from '../admin/simulation.ts';
import type { WebhookDelivery, WebhookEndpoint } from '../webhooks/webhook-admin.ts';
import type { Agree, FromSchema, Same } from './schema-types.ts';
import { instant } from './schemas.ts';

const text = { type: 'string' } as const;
const nullableText = { type: ['string', 'null'] } as const;
const nullableInstant = { anyOf: [instant, { type: 'null' }] } as const;
const object = <P extends Record<string, object>>(properties: P, description?: string) =>
  ({ type: 'object', ...(description ? { description } : {}), properties, required: Object.keys(properties), additionalProperties: false }) as const;

export const accountSchema = object({ id: text, name: text }, 'A partner account.');
export const siteSchema = object({ domain: text, clientRef: nullableText }, 'A client site: a tracked domain and the partner\'s label for it.');
export const keySchema = object(
  { keyId: text, accountId: text, domain: nullableText, clientRef: nullableText, label: nullableText, createdAt: instant, revokedAt: nullableInstant },
  'A key without its value (only its hash is kept). `domain` is set for a domain-scoped key.',
);
export const issuedKeySchema = object(
  { keyId: text, key: { type: 'string', pattern: '^vi_live_[0-9a-f]{40}$', description: 'The key itself: shown this once.' }, accountId: text, domain: nullableText, clientRef: nullableText },
  'A key as issued or rotated: the only answer that carries its value.',
);
export const clockSchema = object({ now: instant, movable: { type: 'boolean', description: '`false` when the server runs on a clock that cannot be moved.' } }, "The server's time.");
export const resetSchema = object({ reset: { const: true }, now: instant });
export const loadedSchema = object({
  received: { type: 'integer', minimum: 0, description: 'Items in the body.' },
  loaded: { type: 'integer', minimum: 0, description: 'Items written (for events: new ones; an eventId already loaded is skipped).' },
});
export const deletedSchema = object({ id: text, deleted: { const: true } });

const events = { type: 'array', items: { type: 'string', enum: WEBHOOK_EVENT_KINDS } } as const;
const endpointProperties = {
  id: text,
  accountId: text,
  url: text,
  events,
  enabled: { type: 'boolean' },
  disabledReason: { ...nullableText, description: 'Why delivery disabled the endpoint (a 410 from the receiver).' },
  previousSecretExpiresAt: { ...nullableInstant, description: 'Until when the secret before the last rotation signs too.' },
  createdAt: instant,
  updatedAt: instant,
} as const;
export const webhookEndpointSchema = object(endpointProperties, 'A webhook endpoint, without its secret.');
export const webhookEndpointWithSecretSchema = object({ ...endpointProperties, secret: { type: 'string', pattern: '^whsec_' } }, 'An endpoint with its secret: on creation and rotation only.');
export const webhookDeliverySchema = object(
  {
    id: text,
    endpointId: text,
    event: { type: 'string', enum: WEBHOOK_EVENT_KINDS },
    domain: text,
    clientRef: nullableText,
    status: { type: 'string', enum: ['pending', 'delivered', 'failed'] } as const,
    test: { type: 'boolean', description: 'Sent by `POST /_admin/webhooks/{endpointId}/test`.' } as const,
    createdAt: instant,
    nextAttemptAt: nullableInstant,
    attempts: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          at: instant,
          status: { type: ['integer', 'null'] } as const,
          latencyMs: { type: 'number' } as const,
          error: nullableText,
          headers: {
            anyOf: [object({ 'content-type': text, 'webhook-id': text, 'webhook-timestamp': text, 'webhook-signature': text }), { type: 'null' }],
            description: 'The headers the attempt was sent with (`webhook-signature`: one `v1,` signature per live secret); null for an attempt logged before the log kept them.',
          },
          body: { type: 'string', description: 'The body exactly as sent, which the signature covers: only when one delivery is read.' } as const,
        },
        required: ['at', 'status', 'latencyMs', 'error', 'headers'],
        additionalProperties: false,
      },
    } as const,
    payload: { description: 'The body as its last attempt sent it, `timestamp` included; before any attempt, the body it is due to carry, timestamped `nextAttemptAt`.' },
  },
  'A delivery of the outbox with its attempts.',
);
export const simulationSchema = object(
  {
    running: { type: 'boolean' } as const,
    everySeconds: { type: 'integer', minimum: 1, description: 'Seconds between batches.' } as const,
    newPeople: { type: 'integer', minimum: 1, description: 'New people identified in each batch.' } as const,
  },
  'The simulated traffic of the host (`serve --simulate`): new people and their activity, loaded as a tracker would.',
);
export const faultRuleSchema = object(
  {
    id: text,
    method: { anyOf: [{ type: 'string', enum: ['GET', 'POST'] }, { type: 'null' }] } as const,
    path: nullableText,
    fault: { anyOf: [{ type: 'string', enum: ALL_FAULTS }, { type: 'null' }] },
    delayMs: { type: ['integer', 'null'] },
    remaining: { type: ['integer', 'null'], description: 'Requests it still applies to; `null` for no end.' },
  },
  'A standing fault: the first rule matching a request whose fault the operation documents applies.',
);

/** The admin schemas by the name they have in the document's components. */
export const ADMIN_SCHEMAS = {
  AdminAccount: accountSchema,
  AdminSite: siteSchema,
  AdminKey: keySchema,
  AdminIssuedKey: issuedKeySchema,
  AdminClock: clockSchema,
  AdminReset: resetSchema,
  AdminLoaded: loadedSchema,
  AdminDeleted: deletedSchema,
  AdminWebhookEndpoint: webhookEndpointSchema,
  AdminWebhookEndpointWithSecret: webhookEndpointWithSecretSchema,
  AdminWebhookDelivery: webhookDeliverySchema,
  AdminFaultRule: faultRuleSchema,
  // What loading takes: the schemas the loader validates with.
  CompanyInput: JSON_INPUT_SCHEMAS.companies,
  PersonInput: JSON_INPUT_SCHEMAS.people,
  VisitInput: JSON_INPUT_SCHEMAS.visit,
  EventInput: JSON_INPUT_SCHEMAS.events,
  TimeInput: JSON_TIME,
  AdminSimulation: simulationSchema,
} as const;

// The webhook admin's own types and these schemas agree: a mismatch fails tsc here.
export type WebhookEndpointAgrees = Agree<Same<FromSchema<typeof webhookEndpointSchema>, WebhookEndpoint>>;
export type WebhookDeliveryAgrees = Agree<Same<Omit<FromSchema<typeof webhookDeliverySchema>, 'payload'>, Omit<WebhookDelivery, 'payload'>>>;
export type SimulationAgrees = Agree<Same<FromSchema<typeof simulationSchema>, SimulationState>>;
