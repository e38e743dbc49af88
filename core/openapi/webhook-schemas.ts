/**
 * The webhook payloads of the OpenAPI document (its `webhooks`), checked against the payload
 * types in `resources/types.ts` at compile time like the resources.
 */
import type { PersonActivityPayload, PersonIdentifiedPayload } from '../resources/types.ts';
import type { Agree, FromSchema, Same } from './schema-types.ts';
import { eventSchema, instant, personSchema } from './schemas.ts';

const envelope = {
  webhookId: { type: 'string', pattern: '^msg_', description: 'The delivery\'s id: the same as the `webhook-id` header, and the same on every retry.' },
  timestamp: { ...instant, description: 'When this attempt was sent: the same second as `webhook-timestamp`.' },
  domain: { type: 'string', description: 'The client site the person or events were seen on.' },
  clientRef: { type: ['string', 'null'], description: 'That site\'s label; `null` for a site registered without one.' },
} as const;
const required = ['webhookId', 'event', 'timestamp', 'domain', 'clientRef', 'data'] as const;

export const personIdentifiedPayloadSchema = {
  type: 'object',
  description: 'A person seen on a client site for the first time: one delivery for each new (person, site) pair a load records.',
  properties: {
    ...envelope,
    event: { const: 'person.identified' },
    data: {
      type: 'object',
      description: '`person` is the Person as an account key read it at load time.',
      properties: { person: personSchema },
      required: ['person'],
      additionalProperties: false,
    },
  },
  required,
  additionalProperties: false,
} as const;

export const personActivityPayloadSchema = {
  type: 'object',
  description: 'Opt-in: a person\'s new events on one site from one load, oldest first, each as the events endpoint returns it.',
  properties: {
    ...envelope,
    event: { const: 'person.activity' },
    data: {
      type: 'object',
      properties: {
        person: {
          type: 'object',
          properties: { id: { type: 'string' }, email: { type: ['string', 'null'] } },
          required: ['id', 'email'],
          additionalProperties: false,
        },
        events: { type: 'array', items: eventSchema, description: 'Oldest first.' },
        eventCount: { type: 'integer', minimum: 1, description: 'Events in this delivery.' },
        truncated: { type: 'boolean', description: '`true` past the per-delivery cap (100 events): the delivery holds the newest 100; page the events endpoint for the rest.' },
      },
      required: ['person', 'events', 'eventCount', 'truncated'],
      additionalProperties: false,
    },
  },
  required,
  additionalProperties: false,
} as const;

/** The webhook schemas by the name they have in the document's components. */
export const WEBHOOK_SCHEMAS = {
  PersonIdentifiedPayload: personIdentifiedPayloadSchema,
  PersonActivityPayload: personActivityPayloadSchema,
} as const;

// Compile-time agreement with resources/types.ts.
export type PersonIdentifiedAgrees = Agree<Same<FromSchema<typeof personIdentifiedPayloadSchema>, PersonIdentifiedPayload>>;
export type PersonActivityAgrees = Agree<Same<FromSchema<typeof personActivityPayloadSchema>, PersonActivityPayload>>;
