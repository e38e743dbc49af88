import { sql, type Kysely } from 'kysely';
import { expect } from 'vitest';
import type { Api, Database } from '../../adapters/node/index.ts';
import { SITES, type World } from './world.ts';

/**
 * What `GET /v1/stats` must answer, counted straight from the tables the way stats counted before
 * the event counters: every event after `since`, people and companies distinct across the view's
 * sites. The view is resolved here on its own (a domain covers its subdomains; a scoped key's
 * domain is a ceiling the filters narrow), so a mistake in the API's resolution shows too.
 */

/** Which rows a stats request may count. */
export interface StatsView {
  /** The domain of a domain-scoped key. */
  scopeDomain?: string;
  domain?: string;
  clientRef?: string;
}

/** The three counts of the Statistics resource. */
export interface DirectCounts {
  totalPeople: number;
  totalCompanies: number;
  recentEvents: number;
}

const within = (domain: string, parent: string) => domain === parent || domain.endsWith(`.${parent}`);

/** The sites a view covers, or `null` for the whole account (an account key with no filter). */
async function viewSites(db: Kysely<Database>, accountId: string, view: StatsView): Promise<number[] | null> {
  if (view.scopeDomain === undefined && view.domain === undefined && view.clientRef === undefined) return null;
  const sites = await db.selectFrom('sites').select(['pk', 'domain', 'client_ref']).where('account_id', '=', accountId).execute();
  return sites
    .filter((s) => view.scopeDomain === undefined || within(s.domain, view.scopeDomain))
    .filter((s) => view.domain === undefined || within(s.domain, view.domain.toLowerCase()))
    .filter((s) => view.clientRef === undefined || s.client_ref === view.clientRef)
    .map((s) => s.pk);
}

/** The counts, by direct `count(*)` over the tables. */
export async function directCounts(db: Kysely<Database>, accountId: string, view: StatsView, since: number): Promise<DirectCounts> {
  const sites = await viewSites(db, accountId, view);
  if (sites !== null && sites.length === 0) return { totalPeople: 0, totalCompanies: 0, recentEvents: 0 };
  const inSites = sites === null ? sql`true` : sql`site_pk in (${sql.join(sites)})`;
  const people = sites === null ? sql`select count(*) from people where account_id = ${accountId}` : sql`select count(distinct person_pk) from person_sites where ${inSites}`;
  const companies = sites === null ? sql`select count(*) from companies where account_id = ${accountId}` : sql`select count(distinct company_pk) from company_sites where ${inSites}`;
  const events = sql`select count(*) from events where account_id = ${accountId} and ts > ${since} and ${inSites}`;
  // One statement: the three counts see the same data, and Postgres is asked once.
  const { rows } = await sql<Record<'p' | 'c' | 'e', number | string>>`select (${people}) as p, (${companies}) as c, (${events}) as e`.execute(db);
  return { totalPeople: Number(rows[0]!.p), totalCompanies: Number(rows[0]!.c), recentEvents: Number(rows[0]!.e) };
}

/** The query string of a stats request for `view` (the scope is the key's, not a parameter). */
export function statsQuery(view: StatsView, days?: number): string {
  const params = new URLSearchParams();
  if (days !== undefined) params.set('days', String(days));
  if (view.domain !== undefined) params.set('domain', view.domain);
  if (view.clientRef !== undefined) params.set('client_ref', view.clientRef);
  const query = params.toString();
  return `/v1/stats${query ? `?${query}` : ''}`;
}

/**
 * Asks the API for stats in `view` over `days` (30 when absent) with `key`, and checks the three
 * counts against {@link directCounts} at the API's clock; returns the counts.
 */
export async function expectStatsExact(api: Api, key: string, accountId: string, view: StatsView, days: number | undefined, nowSeconds: number): Promise<DirectCounts> {
  const path = statsQuery(view, days);
  const res = await api.fetch(new Request(`http://stats.test${path}`, { headers: { 'x-api-key': key } }));
  const body = (await res.json()) as { data: DirectCounts & { periodDays: number } };
  expect(res.status, path).toBe(200);
  const expected = await directCounts(api.db, accountId, view, nowSeconds - (days ?? 30) * 86_400);
  const { totalPeople, totalCompanies, recentEvents } = body.data;
  expect({ totalPeople, totalCompanies, recentEvents }, `${path} (${JSON.stringify(view)}) at ${new Date(nowSeconds * 1000).toISOString()}`).toEqual(expected);
  return expected;
}

/** Every view stats can be asked for in the world: the account key, its filters, each scoped key, and scoped keys with filters. */
export function worldViews(world: World): { key: string; view: StatsView }[] {
  const account = world.accountKey;
  const out: { key: string; view: StatsView }[] = [{ key: account, view: {} }];
  for (const domain of ['alpha.example', 'shop.alpha.example', 'badalpha.example', 'beta.example', 'gamma.example', 'example', 'nowhere.example']) out.push({ key: account, view: { domain } });
  for (const clientRef of ['alpha', 'beta', 'bad', 'nobody']) out.push({ key: account, view: { clientRef } });
  out.push({ key: account, view: { domain: 'alpha.example', clientRef: 'alpha' } }, { key: account, view: { domain: 'beta.example', clientRef: 'alpha' } });
  for (const { domain } of SITES) out.push({ key: world.scopedKeys[domain]!, view: { scopeDomain: domain } });
  out.push(
    { key: world.scopedKeys['alpha.example']!, view: { scopeDomain: 'alpha.example', domain: 'shop.alpha.example' } },
    { key: world.scopedKeys['alpha.example']!, view: { scopeDomain: 'alpha.example', clientRef: 'alpha' } },
    { key: world.scopedKeys['alpha.example']!, view: { scopeDomain: 'alpha.example', domain: 'beta.example' } },
  );
  return out;
}
