/** The document's `webhooks`: what the partner webhook POSTs to a partner's endpoint, and how answers are read. */
import { RETRY_SCHEDULE_SECONDS } from '../webhooks/schedule.ts';
import { personActivityPayloadSchema, personIdentifiedPayloadSchema } from './webhook-schemas.ts';

const header = (name: string, pattern: string, description: string) => ({ name, in: 'header', required: true, schema: { type: 'string', pattern }, description }) as const;

/** The Standard Webhooks headers every delivery carries. */
export const WEBHOOK_PARAMETERS = {
  WebhookId: header('webhook-id', '^msg_', 'The delivery\'s id, the same on every retry: deduplicate on it (delivery is at least once).'),
  WebhookTimestamp: header('webhook-timestamp', '^\\d+$', 'Epoch seconds of this attempt; refuse deliveries more than 5 minutes off your clock.'),
  WebhookSignature: header(
    'webhook-signature',
    '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$',
    '`v1,<base64 HMAC-SHA256>` of `<webhook-id>.<webhook-timestamp>.<raw body>` with the endpoint\'s `whsec_` secret; during a secret rotation, two signatures separated by a space.',
  ),
} as const;

const schedule = RETRY_SCHEDULE_SECONDS.map((s) => (s < 60 ? `${s} s` : s < 3600 ? `${s / 60} min` : `${s / 3600} h`)).join(', ');

const delivery = (operationId: string, summary: string, schema: object) => ({
  post: {
    operationId,
    summary,
    tags: ['Webhooks'],
    security: [],
    parameters: Object.values(WEBHOOK_PARAMETERS),
    requestBody: { required: true, content: { 'application/json': { schema } } },
    responses: {
      '2XX': { description: 'Delivered.' },
      '410': { description: 'The endpoint is disabled; its pending deliveries wait until it is enabled again.' },
      '429': { description: 'Tried again later: at the scheduled time or after `Retry-After` (honoured up to 24 hours), whichever is later.' },
      '503': { description: 'As 429.' },
      default: { description: `Any other answer, or none within the timeout, is tried again after ${schedule} (plus up to 10% jitter); then the delivery is \`failed\`.` },
    },
  },
});

/** The webhook events, by kind. */
export const WEBHOOKS = {
  'person.identified': delivery('personIdentified', 'A person was seen on a client site for the first time', personIdentifiedPayloadSchema),
  'person.activity': delivery('personActivity', 'A person\'s new events on one site (opt-in)', personActivityPayloadSchema),
} as const;
