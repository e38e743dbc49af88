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
export async function writeIdentified(trx: Transaction<Database>, endpointIds: string[], pairs: IdentifiedPair[], nowSeconds: number, test = false): Promise<string[]> {
  if (endpointIds.length === 0 || pairs.length === 0) return [];
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
    endpointIds.map((endpointId) => delivery(endpointId, 'person.identified', pair.site, `{"person":${json.get(pair.personPk)!}}`, nowSeconds, test)),
  );
  await insertDeliveries(trx, rows);
  return rows.map((r) => r.id);
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
export async function writeActivity(trx: Transaction<Database>, endpointIds: string[], events: NewEvent[], cap: number, nowSeconds: number, test = false): Promise<string[]> {
  if (endpointIds.length === 0 || events.length === 0) return [];
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
  const ids: string[] = [];
  let pending: Insertable[] = [];
  for (const group of groups.values()) {
    group.sort((a, b) => a.ts - b.ts || (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0));
    const carried = group.length > cap ? group.slice(group.length - cap) : group;
    const data = `{"person":${JSON.stringify(people.get(group[0]!.personPk))},"events":[${carried.map((e) => e.body).join(',')}],"eventCount":${carried.length},"truncated":${group.length > cap}}`;
    for (const endpointId of endpointIds) pending.push(delivery(endpointId, 'person.activity', group[0]!.site, data, nowSeconds, test));
    if (pending.length >= CHUNK) {
      await insertDeliveries(trx, pending);
      ids.push(...pending.map((r) => r.id));
      pending = [];
    }
  }
  await insertDeliveries(trx, pending);
  return [...ids, ...pending.map((r) => r.id)];
}

/**
 * A test delivery of `kind` to one endpoint, about real data of the account: for
 * `person.identified` its most recently seen person, at the site of their latest visit; for
 * `person.activity` the person and site of its newest event, with their newest events up to the
 * cap. Undefined when the account has nothing to report yet.
 */
export async function writeTest(trx: Transaction<Database>, endpointId: string, accountId: string, kind: WebhookEventKind, cap: number, nowSeconds: number): Promise<string | undefined> {
  const site = (pk: number) => trx.selectFrom('sites').select(['pk', 'domain', 'client_ref as clientRef']).where('pk', '=', pk).executeTakeFirstOrThrow();
  if (kind === 'person.identified') {
    const newest = await trx.selectFrom('people').select(['pk', 'last_site_pk']).where('account_id', '=', accountId).orderBy('last_seen', 'desc').orderBy('pk', 'desc').limit(1).executeTakeFirst();
    if (!newest) return undefined;
    return (await writeIdentified(trx, [endpointId], [{ personPk: newest.pk, site: await site(newest.last_site_pk) }], nowSeconds, true))[0];
  }
  const newest = await trx.selectFrom('events').select(['person_pk', 'site_pk']).where('account_id', '=', accountId).orderBy('ts', 'desc').orderBy('pk', 'desc').limit(1).executeTakeFirst();
  if (!newest) return undefined;
  const at = await site(newest.site_pk);
  // One past the cap, so the delivery says `truncated` as a loaded batch that long would.
  const rows = await trx
    .selectFrom('events')
    .select(['event_id', 'ts', 'body'])
    .where('person_pk', '=', newest.person_pk)
    .where('site_pk', '=', newest.site_pk)
    .orderBy('ts', 'desc')
    .orderBy('pk', 'desc')
    .limit(cap + 1)
    .execute();
  const events = rows.map((r) => ({ personPk: newest.person_pk, site: at, eventId: r.event_id, ts: r.ts, body: r.body }));
  return (await writeActivity(trx, [endpointId], events, cap, nowSeconds, true))[0];
}

type Insertable = KyselyInsertable<WebhookDeliveriesTable>;

function delivery(endpointId: string, event: WebhookEventKind, site: Site, data: string, nowSeconds: number, test: boolean): Insertable {
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
    test: test ? 1 : 0,
  };
}

async function insertDeliveries(trx: Transaction<Database>, rows: Insertable[]): Promise<void> {
  // 14 columns a row: 60 rows stay far below SQLite's bound-parameter limit.
  for (let i = 0; i < rows.length; i += 60) await trx.insertInto('webhook_deliveries').values(rows.slice(i, i + 60)).execute();
}
