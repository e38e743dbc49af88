import { toHex } from '../auth/api-key.ts';
import { AdminError } from '../admin/inputs.ts';
import { WEBHOOK_EVENT_KINDS, type DateTime, type WebhookEventKind } from '../resources/types.ts';
import type { AttemptRow, DeliveryRow, EndpointRow, WebhooksStore } from '../store/webhooks-store.ts';
import type { Clock } from '../time/clock.ts';
import { isoSeconds, toEpochSeconds } from '../time/iso.ts';
import { envelope } from './dispatcher.ts';
import { generateWebhookSecret, secretProblem, type WebhookHeaders } from './signing.ts';

/** A webhook endpoint as the admin surface describes it (its secret only when created or rotated). */
export interface WebhookEndpoint {
  id: string;
  accountId: string;
  url: string;
  events: WebhookEventKind[];
  enabled: boolean;
  /** Why delivery disabled the endpoint (a 410 from the receiver); null otherwise. */
  disabledReason: string | null;
  /** Until when the secret before the last rotation still signs too; null outside an overlap. */
  previousSecretExpiresAt: DateTime | null;
  createdAt: DateTime;
  updatedAt: DateTime;
}

/** An endpoint with its secret: what creating it and rotating its secret return. */
export interface WebhookEndpointWithSecret extends WebhookEndpoint {
  secret: string;
}

/** What an endpoint is created from. */
export interface WebhookEndpointInput {
  /** Where deliveries are POSTed: an http or https URL. */
  url: string;
  /** `whsec_` and the base64 of 24–64 bytes; generated when not given. */
  secret?: string;
  /**
   * The opt-in kinds: `person.activity`. `person.identified` goes to every endpoint, so it is
   * added when left out; default `['person.identified']`.
   */
  events?: WebhookEventKind[];
  /** Default true. */
  enabled?: boolean;
}

/** One attempt in a delivery's log. */
export interface WebhookAttempt {
  at: DateTime;
  /** The receiver's HTTP status; null when it never answered (refused, timed out). */
  status: number | null;
  latencyMs: number;
  error: string | null;
  /** The headers it was sent with, signatures included; null for an attempt logged before the log kept them. */
  headers: WebhookHeaders | null;
  /** The body exactly as it was sent, which its signature covers; given when one delivery is read, not in lists. */
  body?: string;
}

/** A delivery with its attempts. */
export interface WebhookDelivery {
  /** The `webhook-id`, and the payload's `webhookId`. */
  id: string;
  endpointId: string;
  event: WebhookEventKind;
  domain: string;
  clientRef: string | null;
  status: 'pending' | 'delivered' | 'failed';
  /** Whether an admin asked for it as a test ({@link WebhookAdmin.sendTest}). */
  test: boolean;
  createdAt: DateTime;
  /** When the next attempt is due; null once delivered or failed. */
  nextAttemptAt: DateTime | null;
  attempts: WebhookAttempt[];
  /**
   * The body as its last attempt sent it, `timestamp` included; before any attempt, the body it is
   * due to carry (timestamped `nextAttemptAt`).
   */
  payload: unknown;
}

/** The default overlap of a secret rotation: the old secret signs too for a day. */
export const DEFAULT_ROTATION_OVERLAP_SECONDS = 24 * 3600;

/** Webhook endpoints, their secrets and their delivery log: the admin surface's `webhooks`. */
export class WebhookAdmin {
  constructor(
    private readonly store: WebhooksStore,
    private readonly clock: Clock,
    private readonly hasAccount: (accountId: string) => Promise<boolean>,
    /** Told when deliveries may have become due (a redelivery). */
    private readonly wake: () => void,
    /** The most events one `person.activity` delivery carries, test deliveries included. */
    private readonly activityCap: number,
  ) {}

  /** Creates an endpoint for an account; the secret is generated unless given. */
  async create(accountId: string, input: WebhookEndpointInput): Promise<WebhookEndpointWithSecret> {
    if (!(await this.hasAccount(accountId))) throw new AdminError(`no account ${accountId}`);
    const url = checkUrl(input.url);
    const secret = input.secret === undefined ? generateWebhookSecret() : checkSecret(input.secret);
    const events = checkEvents(input.events ?? ['person.identified']);
    const enabled = checkEnabled(input.enabled ?? true);
    const now = this.#now();
    const id = `whe_${toHex(crypto.getRandomValues(new Uint8Array(12)))}`;
    await this.store.insertEndpoint({ id, account_id: accountId, url, secret, previous_secret: null, previous_secret_until: null, events: events.join(','), enabled: enabled ? 1 : 0, disabled_reason: null, created_at: now, updated_at: now });
    return { ...describe((await this.store.endpoint(id))!, now), secret };
  }

  /** An account's endpoints, oldest first. */
  async list(accountId: string): Promise<WebhookEndpoint[]> {
    const now = this.#now();
    return (await this.store.endpoints(accountId)).map((row) => describe(row, now));
  }

  /** One endpoint. */
  async get(endpointId: string): Promise<WebhookEndpoint> {
    return describe(await this.#endpoint(endpointId), this.#now());
  }

  /** Changes an endpoint's URL, event kinds or enabled state; enabling sends what waited while it was disabled. */
  async update(endpointId: string, patch: { url?: string; events?: WebhookEventKind[]; enabled?: boolean }): Promise<WebhookEndpoint> {
    await this.#endpoint(endpointId);
    const set: Parameters<WebhooksStore['updateEndpoint']>[1] = { updated_at: this.#now() };
    if (patch.url !== undefined) set.url = checkUrl(patch.url);
    if (patch.events !== undefined) set.events = checkEvents(patch.events).join(',');
    if (patch.enabled !== undefined) {
      set.enabled = checkEnabled(patch.enabled) ? 1 : 0;
      if (patch.enabled) set.disabled_reason = null;
    }
    await this.store.updateEndpoint(endpointId, set);
    if (patch.enabled) this.wake();
    return this.get(endpointId);
  }

  /** Deletes an endpoint with its deliveries, sent or not. */
  async delete(endpointId: string): Promise<void> {
    await this.#endpoint(endpointId);
    await this.store.deleteEndpoint(endpointId);
  }

  /**
   * Replaces the secret (generated unless given). Deliveries are signed with both the new and the
   * old secret for `overlapSeconds` (default a day), so receivers can switch without losing any.
   */
  async rotateSecret(endpointId: string, options: { secret?: string; overlapSeconds?: number } = {}): Promise<WebhookEndpointWithSecret> {
    const row = await this.#endpoint(endpointId);
    const secret = options.secret === undefined ? generateWebhookSecret() : checkSecret(options.secret);
    if (secret === row.secret) throw new AdminError('secret must differ from the current secret');
    const overlap = options.overlapSeconds ?? DEFAULT_ROTATION_OVERLAP_SECONDS;
    if (!Number.isInteger(overlap) || overlap < 0 || overlap > 30 * 86_400) throw new AdminError('overlapSeconds must be an integer from 0 to 2592000 (30 days)');
    const now = this.#now();
    await this.store.updateEndpoint(endpointId, { secret, previous_secret: overlap > 0 ? row.secret : null, previous_secret_until: overlap > 0 ? now + overlap : null, updated_at: now });
    return { ...(await this.get(endpointId)), secret };
  }

  /** An endpoint's deliveries, newest first, with their attempts; `before` (a delivery id) pages on. */
  async deliveries(endpointId: string, options: { status?: WebhookDelivery['status']; limit?: number; before?: string } = {}): Promise<{ deliveries: WebhookDelivery[]; nextBefore?: string }> {
    await this.#endpoint(endpointId);
    const limit = options.limit ?? 50;
    if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new AdminError('limit must be an integer from 1 to 500');
    if (options.status !== undefined && !['pending', 'delivered', 'failed'].includes(options.status)) throw new AdminError('status must be pending, delivered or failed');
    let beforePk: number | undefined;
    if (options.before !== undefined) {
      const before = await this.store.delivery(String(options.before));
      if (!before || before.endpoint_id !== endpointId) throw new AdminError(`before ${options.before} is not a delivery of endpoint ${endpointId}`);
      beforePk = before.pk;
    }
    const rows = await this.store.deliveries(endpointId, { status: options.status, beforePk, limit: limit + 1 });
    const page = rows.slice(0, limit);
    const deliveries = await this.#withAttempts(page);
    return rows.length > limit ? { deliveries, nextBefore: page[page.length - 1]!.id } : { deliveries };
  }

  /** One delivery with its attempts, each with the body it sent. */
  async delivery(deliveryId: string): Promise<WebhookDelivery> {
    const row = await this.store.delivery(String(deliveryId));
    if (!row) throw new AdminError(`no webhook delivery ${deliveryId}`);
    return (await this.#withAttempts([row], true))[0]!;
  }

  /**
   * Puts a signed test delivery of `event` (default `person.identified`) in the outbox for one
   * endpoint, about the account's own data (see `writeTest`): it goes out, is retried and logged
   * like any other, marked `test`. The endpoint must be enabled and take that kind.
   */
  async sendTest(endpointId: string, options: { event?: WebhookEventKind } = {}): Promise<WebhookDelivery> {
    const endpoint = await this.#endpoint(endpointId);
    const kind = options.event ?? 'person.identified';
    if (!WEBHOOK_EVENT_KINDS.includes(kind)) throw new AdminError(`event: ${JSON.stringify(kind)} is not an event kind (${WEBHOOK_EVENT_KINDS.join(', ')})`);
    if (!endpoint.enabled) throw new AdminError(`endpoint ${endpoint.id} is disabled; enable it before sending a test event`);
    if (!endpoint.events.split(',').includes(kind)) throw new AdminError(`endpoint ${endpoint.id} does not take ${kind} (it takes ${endpoint.events.split(',').join(', ')})`);
    const id = await this.store.enqueueTest(endpoint.id, endpoint.account_id, kind, this.activityCap, this.#now());
    if (id === undefined) throw new AdminError(`account ${endpoint.account_id} has no ${kind === 'person.identified' ? 'people' : 'events'} to report in a test event yet; load some first`);
    this.wake();
    return this.delivery(id);
  }

  /** Sends a failed delivery again, now, with the same `webhook-id` and a fresh run of the retry schedule. */
  async redeliver(deliveryId: string): Promise<WebhookDelivery> {
    const row = await this.store.delivery(String(deliveryId));
    if (!row) throw new AdminError(`no webhook delivery ${deliveryId}`);
    if (row.status !== 'failed') throw new AdminError(`delivery ${deliveryId} is ${row.status}; only a failed delivery can be redelivered`);
    const endpoint = await this.#endpoint(row.endpoint_id);
    if (!endpoint.enabled) throw new AdminError(`endpoint ${endpoint.id} is disabled; enable it before redelivering`);
    await this.store.requeue(row.pk, this.#now());
    this.wake();
    return this.delivery(deliveryId);
  }

  /** The deliveries with their attempts; `bodies` adds what each attempt sent, rebuilt from the row and the attempt's time as the dispatcher built it. */
  async #withAttempts(rows: DeliveryRow[], bodies = false): Promise<WebhookDelivery[]> {
    const attempts = new Map<number, AttemptRow[]>();
    for (const a of await this.store.attempts(rows.map((r) => r.pk))) {
      const list = attempts.get(a.delivery_pk);
      if (list) list.push(a);
      else attempts.set(a.delivery_pk, [a]);
    }
    return rows.map((r) => ({
      id: r.id,
      endpointId: r.endpoint_id,
      event: r.event as WebhookEventKind,
      domain: r.domain,
      clientRef: r.client_ref,
      status: r.status,
      test: r.test === 1,
      createdAt: isoSeconds(r.created_at),
      nextAttemptAt: r.status === 'pending' ? isoSeconds(r.next_attempt_at) : null,
      attempts: (attempts.get(r.pk) ?? []).map((a) => ({
        at: isoSeconds(a.at),
        status: a.status,
        latencyMs: a.latency_ms,
        error: a.error,
        headers: a.headers === null ? null : (JSON.parse(a.headers) as WebhookHeaders),
        ...(bodies ? { body: envelope(r, a.at) } : {}),
      })),
      payload: JSON.parse(envelope(r, attempts.get(r.pk)?.at(-1)?.at ?? r.next_attempt_at)),
    }));
  }

  async #endpoint(endpointId: string): Promise<EndpointRow> {
    const row = await this.store.endpoint(String(endpointId));
    if (!row) throw new AdminError(`no webhook endpoint ${endpointId}`);
    return row;
  }

  #now(): number {
    return toEpochSeconds(this.clock.now());
  }
}

function describe(row: EndpointRow, now: number): WebhookEndpoint {
  const overlap = row.previous_secret !== null && row.previous_secret_until !== null && row.previous_secret_until > now;
  return {
    id: row.id,
    accountId: row.account_id,
    url: row.url,
    events: row.events.split(',') as WebhookEventKind[],
    enabled: row.enabled === 1,
    disabledReason: row.disabled_reason,
    previousSecretExpiresAt: overlap ? isoSeconds(row.previous_secret_until!) : null,
    createdAt: isoSeconds(row.created_at),
    updatedAt: isoSeconds(row.updated_at),
  };
}

function checkUrl(value: unknown): string {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' && value.length <= 2048 ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
    throw new AdminError(`url must be an http or https URL of at most 2048 characters, not ${JSON.stringify(String(value)).slice(0, 120)}`);
  }
  return url.href;
}

function checkSecret(value: unknown): string {
  const problem = secretProblem(value);
  if (problem) throw new AdminError(`secret ${problem}`);
  return value as string;
}

/**
 * The kinds an endpoint takes. `person.identified` is always one of them (the issue makes it the
 * point of having an endpoint), so a list that leaves it out is accepted and it is added: `events`
 * only chooses the opt-in kinds, and `[]` means none of them.
 */
function checkEvents(value: unknown): WebhookEventKind[] {
  const kinds = WEBHOOK_EVENT_KINDS.join(', ');
  if (!Array.isArray(value)) throw new AdminError(`events must be an array of event kinds (${kinds})`);
  for (const kind of value) if (!WEBHOOK_EVENT_KINDS.includes(kind)) throw new AdminError(`events: ${JSON.stringify(kind)} is not an event kind (${kinds})`);
  if (new Set(value).size !== value.length) throw new AdminError('events names a kind twice');
  return WEBHOOK_EVENT_KINDS.filter((k) => k === 'person.identified' || value.includes(k));
}

function checkEnabled(value: unknown): boolean {
  if (typeof value !== 'boolean') throw new AdminError('enabled must be true or false');
  return value;
}
