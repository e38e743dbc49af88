import type { Insertable as KyselyInsertable, Transaction } from 'kysely';
import { toHex } from '../auth/api-key.ts';
import type { WebhookEventKind } from '../resources/types.ts';
import type { Site } from '../scope/view.ts';
import { accountPersonJsonSql } from './person-row.ts';
import type { Database, WebhookDeliveriesTable } from './schema.ts';

/**
 * Writes webhook deliveries into the outbox from inside the loading transactions, so a delivery
 * exists exactly when the data it reports does: a crash either keeps both or neither.
 */

/** Rows per multi-row statement, as in the ingest store. */
const CHUNK = 400;

/** A new delivery id: the `webhook-id`, unique and the same on every attempt. */
export function newDeliveryId(): string {
  return `msg_${toHex(crypto.getRandomValues(new Uint8Array(12)))}`;
}

/** The enabled endpoints of an account that take this kind of event. */
export async function subscribedEndpoints(trx: Transaction<Database>, accountId: string, kind: WebhookEventKind): Promise<string[]> {
  const rows = await trx.selectFrom('webhook_endpoints').select(['id', 'events']).where('account_id', '=', accountId).where('enabled', '=', 1).orderBy('created_at').orderBy('id').execute();
  return rows.filter((r) => r.events.split(',').includes(kind)).map((r) => r.id);
}

/** A person newly seen on a site. */
export interface IdentifiedPair {
  personPk: number;
  site: Site;
}

/**
 * One `person.identified` delivery per endpoint for each person first seen on a site; `data.person`
 * is the Person as the account-wide read API returns it: its stored text, which the loading
 * transaction has just rewritten.
 */
export async function writeIdentified(trx: Transaction<Database>, endpointIds: string[], pairs: IdentifiedPair[], nowSeconds: number): Promise<void> {
  if (endpointIds.length === 0 || pairs.length === 0) return;
  const personPks = [...new Set(pairs.map((p) => p.personPk))];
  const json = new Map<number, string>();
  for (let i = 0; i < personPks.length; i += CHUNK) {
    const rows = await trx
      .selectFrom('people as p')
      .select([accountPersonJsonSql().as('json'), 'p.pk'])
      .where('p.pk', 'in', personPks.slice(i, i + CHUNK))
      .execute();
    for (const r of rows) json.set(r.pk, r.json);
  }
  const rows = pairs.flatMap((pair) =>
    endpointIds.map((endpointId) => delivery(endpointId, 'person.identified', pair.site, `{"person":${json.get(pair.personPk)!}}`, nowSeconds)),
  );
  await insertDeliveries(trx, rows);
}

/** An event just inserted, with what its delivery needs. */
export interface NewEvent {
  personPk: number;
  site: Site;
  eventId: string;
  ts: number;
  /** The event as the API returns it, as JSON text. */
  body: string;
}

/**
 * One `person.activity` delivery per endpoint for each (person, site) with new events in this load,
 * oldest first. Past the cap, the delivery carries the newest `cap` events and says `truncated`.
 */
export async function writeActivity(trx: Transaction<Database>, endpointIds: string[], events: NewEvent[], cap: number, nowSeconds: number): Promise<void> {
  if (endpointIds.length === 0 || events.length === 0) return;
  const groups = new Map<string, NewEvent[]>();
  for (const e of events) {
    const key = `${e.personPk}:${e.site.pk}`;
    const group = groups.get(key);
    if (group) group.push(e);
    else groups.set(key, [e]);
  }
  const people = new Map<number, { id: string; email: string | null }>();
  const personPks = [...new Set(events.map((e) => e.personPk))];
  for (let i = 0; i < personPks.length; i += CHUNK) {
    const rows = await trx.selectFrom('people').select(['pk', 'id', 'email']).where('pk', 'in', personPks.slice(i, i + CHUNK)).execute();
    for (const r of rows) people.set(r.pk, { id: r.id, email: r.email });
  }
  let pending: Insertable[] = [];
  for (const group of groups.values()) {
    group.sort((a, b) => a.ts - b.ts || (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0));
    const carried = group.length > cap ? group.slice(group.length - cap) : group;
    const data = `{"person":${JSON.stringify(people.get(group[0]!.personPk))},"events":[${carried.map((e) => e.body).join(',')}],"eventCount":${carried.length},"truncated":${group.length > cap}}`;
    for (const endpointId of endpointIds) pending.push(delivery(endpointId, 'person.activity', group[0]!.site, data, nowSeconds));
    if (pending.length >= CHUNK) {
      await insertDeliveries(trx, pending);
      pending = [];
    }
  }
  await insertDeliveries(trx, pending);
}

type Insertable = KyselyInsertable<WebhookDeliveriesTable>;

function delivery(endpointId: string, event: WebhookEventKind, site: Site, data: string, nowSeconds: number): Insertable {
  return {
    id: newDeliveryId(),
    endpoint_id: endpointId,
    event,
    domain: site.domain,
    client_ref: site.clientRef,
    data,
    status: 'pending',
    next_attempt_at: nowSeconds,
    lease_owner: null,
    lease_until: null,
    last_status: null,
    last_attempt_at: null,
    created_at: nowSeconds,
  };
}

async function insertDeliveries(trx: Transaction<Database>, rows: Insertable[]): Promise<void> {
  // 13 columns a row: 60 rows stay far below SQLite's bound-parameter limit.
  for (let i = 0; i < rows.length; i += 60) await trx.insertInto('webhook_deliveries').values(rows.slice(i, i + 60)).execute();
}
