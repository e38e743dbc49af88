import { checkSignature } from './signature.ts';

/**
 * Judges one webhook delivery against the spec's Events section and Standard Webhooks signing.
 * Pure and runtime-neutral, so the `webhooks listen` command and the conformance harness judge
 * deliveries alike.
 */

/** What each delivery is checked for, one statement each; the harness reports them under these ids. */
export const WEBHOOK_CHECKS = {
  'webhooks.signature': 'Each delivery carries webhook-id, webhook-timestamp and a v1 HMAC-SHA256 signature of "{id}.{timestamp}.{body}" under the secret, with a recent timestamp',
  'webhooks.envelope': 'Each delivery is a JSON object with webhookId (equal to the webhook-id header), a known event, a date-time timestamp, a domain and a clientRef',
  'webhooks.identified-shape': 'A person.identified delivery carries data.person with a string id',
  'webhooks.activity-shape': 'A person.activity delivery carries data.person {id, email} and data.events, each with eventType, a date-time timestamp and url, click events with clickElement',
  'webhooks.single-site': 'A person.activity delivery never mixes client sites: each event that names its domain names the delivery\'s',
  'webhooks.activity-order': 'The events of a person.activity delivery are ordered oldest first',
  'webhooks.event-count': 'data.eventCount of a person.activity delivery equals the number of events it carries',
  'webhooks.truncated': 'data.truncated of a person.activity delivery is a boolean',
  'webhooks.unique-id': 'A webhook-id names one delivery: one that comes again (a retry) carries the same event, domain, clientRef and data',
} as const;

/** The id of one statement a delivery is checked for. */
export type WebhookCheckId = keyof typeof WEBHOOK_CHECKS;

/** A request as the receiver got it: its headers and its raw body. */
export interface IncomingDelivery {
  headers: Record<string, string | undefined> | Headers;
  body: string;
}

/** How one delivery fared. */
export interface DeliveryJudgement {
  /** The `webhook-id` header, when there was one. */
  webhookId: string | null;
  /** The payload's event kind, when it could be read. */
  event: string | null;
  domain: string | null;
  clientRef: string | null;
  /** Events carried by a person.activity delivery. */
  eventCount: number | null;
  truncated: boolean | null;
  /** The answer a receiver should give: 200 when valid, 401 for a bad signature, 400 for a bad payload. */
  status: 200 | 400 | 401;
  /** Each statement that applied to this delivery: null when it held, else why not. */
  outcomes: Partial<Record<WebhookCheckId, string | null>>;
  /** The failures, as `id: message`, in check order. */
  problems: string[];
  /** The parsed payload (only once the signature held). */
  payload: unknown;
  /** A genuine repeat of an earlier delivery (its webhook-id and content again): a retry, not a new delivery. */
  duplicate: boolean;
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Whether a value is an ISO 8601 date-time with a zone, as the spec's timestamps are. */
export function isDateTime(value: unknown): value is string {
  return typeof value === 'string' && DATE_TIME.test(value) && Number.isFinite(Date.parse(value));
}

/**
 * Verifies a delivery's signature with the Standard Webhooks reference library (against any of
 * `secrets`, with the timestamp within `toleranceSeconds` of `nowSeconds`), then, when genuine,
 * checks its payload.
 */
export async function judgeDelivery(secrets: string[], delivery: IncomingDelivery, nowSeconds: number, toleranceSeconds = 300): Promise<DeliveryJudgement> {
  const header = (name: string) => (delivery.headers instanceof Headers ? (delivery.headers.get(name) ?? undefined) : delivery.headers[name]);
  const webhookId = header('webhook-id') ?? null;
  const verified = checkSignature(secrets, header, delivery.body, nowSeconds, toleranceSeconds);
  const outcomes: DeliveryJudgement['outcomes'] = {};
  const base = { webhookId, event: null, domain: null, clientRef: null, eventCount: null, truncated: null };
  if (!verified.ok) {
    outcomes['webhooks.signature'] = verified.reason;
    return { ...base, status: 401, outcomes, problems: problemsOf(outcomes), payload: undefined, duplicate: false };
  }
  outcomes['webhooks.signature'] = null;
  const payload = verified.payload as any;
  checkPayload(payload, webhookId, outcomes);
  const object = isObject(payload) ? payload : {};
  const data = isObject(object.data) ? object.data : {};
  const problems = problemsOf(outcomes);
  return {
    webhookId,
    event: typeof object.event === 'string' ? object.event : null,
    domain: typeof object.domain === 'string' ? object.domain : null,
    clientRef: typeof object.clientRef === 'string' ? object.clientRef : null,
    eventCount: Array.isArray(data.events) ? data.events.length : null,
    truncated: typeof data.truncated === 'boolean' ? data.truncated : null,
    status: problems.length === 0 ? 200 : 400,
    outcomes,
    problems,
    payload,
    duplicate: false,
  };
}

function checkPayload(payload: any, webhookId: string | null, outcomes: DeliveryJudgement['outcomes']): void {
  const record = (id: WebhookCheckId, problem: string | undefined) => (outcomes[id] = problem ?? null);
  record('webhooks.envelope', envelopeProblem(payload, webhookId));
  if (!isObject(payload)) return;
  if (payload.event === 'person.identified') {
    const person = isObject(payload.data) ? payload.data.person : undefined;
    record('webhooks.identified-shape', isObject(person) && typeof person.id === 'string' && person.id !== '' ? undefined : 'data.person must be an object with a string id');
  }
  if (payload.event !== 'person.activity') return;
  const data = payload.data;
  record('webhooks.activity-shape', activityProblem(data));
  const events: unknown[] = isObject(data) && Array.isArray(data.events) ? data.events : [];
  const cannot = isObject(data) && Array.isArray(data.events) ? undefined : 'data.events is not an array';
  record('webhooks.single-site', cannot ?? siteProblem(events, payload.domain));
  record('webhooks.activity-order', cannot ?? orderProblem(events));
  record('webhooks.event-count', cannot ?? (data.eventCount === events.length ? undefined : `data.eventCount is ${JSON.stringify(data.eventCount)} but data.events holds ${events.length}`));
  record('webhooks.truncated', isObject(data) && typeof data.truncated === 'boolean' ? undefined : `data.truncated must be true or false, not ${JSON.stringify(isObject(data) ? data.truncated : undefined)}`);
}

function envelopeProblem(payload: any, webhookId: string | null): string | undefined {
  if (!isObject(payload)) return 'the body is not a JSON object';
  if (typeof payload.webhookId !== 'string' || payload.webhookId !== webhookId) return `webhookId ${JSON.stringify(payload.webhookId)} differs from the webhook-id header ${JSON.stringify(webhookId)}`;
  if (payload.event !== 'person.identified' && payload.event !== 'person.activity') return `event ${JSON.stringify(payload.event)} is not person.identified or person.activity`;
  if (!isDateTime(payload.timestamp)) return `timestamp ${JSON.stringify(payload.timestamp)} is not a date-time`;
  if (typeof payload.domain !== 'string' || payload.domain === '') return 'domain must be a non-empty string';
  // The spec types clientRef as a string; a site without a label may give null, but the field is there.
  if (!('clientRef' in payload) || (payload.clientRef !== null && typeof payload.clientRef !== 'string')) return 'clientRef must be present, a string (or null for a site without a label)';
  if (!isObject(payload.data)) return 'data must be an object';
  return undefined;
}

function activityProblem(data: any): string | undefined {
  if (!isObject(data)) return 'data must be an object';
  const person = data.person;
  if (!isObject(person) || typeof person.id !== 'string' || person.id === '') return 'data.person must be an object with a string id';
  if (!('email' in person) || (person.email !== null && typeof person.email !== 'string')) return 'data.person.email must be present, a string (or null)';
  if (!Array.isArray(data.events)) return 'data.events must be an array';
  if (data.events.length === 0) return 'data.events is empty: a person.activity delivery carries new events';
  for (const [i, event] of data.events.entries()) {
    const at = `data.events[${i}]`;
    if (!isObject(event)) return `${at} is not an object`;
    for (const field of ['eventType', 'url'] as const) if (typeof event[field] !== 'string' || event[field] === '') return `${at}.${field} must be a non-empty string`;
    if (!isDateTime(event.timestamp)) return `${at}.timestamp ${JSON.stringify(event.timestamp)} is not a date-time`;
    if (event.eventType === 'click' && typeof event.clickElement !== 'string') return `${at} is a click without a string clickElement`;
  }
  return undefined;
}

function siteProblem(events: unknown[], domain: unknown): string | undefined {
  for (const [i, event] of events.entries()) {
    if (isObject(event) && 'domain' in event && event.domain !== domain) return `data.events[${i}].domain is ${JSON.stringify(event.domain)}, the delivery's domain ${JSON.stringify(domain)}`;
  }
  return undefined;
}

function orderProblem(events: unknown[]): string | undefined {
  let previous = -Infinity;
  for (const [i, event] of events.entries()) {
    const at = isObject(event) && isDateTime(event.timestamp) ? Date.parse(event.timestamp) : NaN;
    if (Number.isNaN(at)) return `data.events[${i}] has no date-time timestamp to order by`;
    if (at < previous) return `data.events[${i}] (${(event as any).timestamp}) is older than data.events[${i - 1}]: events must be oldest first`;
    previous = at;
  }
  return undefined;
}

/** The failures of `outcomes`, as `id: message`, in check order. */
export function problemsOf(outcomes: DeliveryJudgement['outcomes']): string[] {
  return (Object.keys(WEBHOOK_CHECKS) as WebhookCheckId[]).filter((id) => typeof outcomes[id] === 'string').map((id) => `${id}: ${outcomes[id]}`);
}

function isObject(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
