import { sql, type Transaction } from 'kysely';
import { checkInput } from '../admin/input-check.ts';
import { AdminError, toSeconds, type CompanyInput, type EventInput, type PersonInput } from '../admin/inputs.ts';
import { pagePath } from '../scope/page-path.ts';
import type { Site } from '../scope/view.ts';
import { normalizeDomain } from '../scope/domain.ts';
import { companyCsvCells, personCsvHead, personCsvTail } from '../exports/columns.ts';
import { EventTally } from './event-counts.ts';
import { refreshSiteSets } from './site-sets.ts';
import { isoSeconds } from '../time/iso.ts';
import type { Database, Db } from './schema.ts';
import { renderCompanies, renderCompanyFigures, renderCompanySites, renderPeople, renderPeopleTails, renderPersonSites } from './stored-text.ts';
import { subscribedEndpoints, writeActivity, writeIdentified, type IdentifiedPair, type NewEvent } from './webhook-outbox.ts';

/** Rows per multi-row INSERT: well under SQLite's bound-parameter limit for our widest table. */
const CHUNK = 400;

/** Told, after each chunk a load writes, how many of its items are written so far. */
export type LoadProgress = (done: number) => void;

/** What loading needs to know about webhooks. */
export interface IngestOptions {
  /** The most events one `person.activity` delivery carries. */
  activityCap: number;
}

/**
 * Loads companies, people and events into an account. Each load is one transaction: all or nothing,
 * webhook deliveries for what it loaded included.
 */
export class IngestStore {
  constructor(
    private readonly db: Db,
    private readonly options: IngestOptions = { activityCap: 100 },
  ) {}

  /**
   * Inserts or replaces companies by id. Every Company field has a type in the spec and none
   * is nullable, so an absent or null text field is stored as `''` and an absent employee count
   * as `0`; a value of another type is refused by the schema, naming the field.
   */
  async loadCompanies(accountId: string, companies: CompanyInput[], nowSeconds: number, onProgress?: LoadProgress): Promise<number> {
    const rows = companies.map((c, i) => {
      checkInput('companies', c, i);
      const row = {
        account_id: accountId,
        id: c.id,
        name: c.name,
        domain: c.domain ?? '',
        standardized_industry: c.standardizedIndustry ?? '',
        location: c.location ?? '',
        region: c.region ?? '',
        linkedin_url: c.linkedinUrl ?? '',
        employee_count: c.employeeCount ?? 0,
        is_hot_company: c.isHotCompany ? 1 : 0,
        traffic_type: c.trafficType ?? '',
        ad_platform: c.adPlatform ?? '',
        visit_count: 0,
        first_seen: nowSeconds,
        last_seen: nowSeconds,
        loaded_at: nowSeconds,
      };
      return { ...row, csv_cells: companyCsvCells(row) };
    });
    await this.db.transaction().execute(async (trx) => {
      const loaded: number[] = [];
      for (let i = 0; i < rows.length; i += CHUNK) {
        const inserted = await trx
          .insertInto('companies')
          .values(rows.slice(i, i + CHUNK))
          .onConflict((oc) =>
            oc.columns(['account_id', 'id']).doUpdateSet((eb) => ({
              name: eb.ref('excluded.name'),
              domain: eb.ref('excluded.domain'),
              standardized_industry: eb.ref('excluded.standardized_industry'),
              location: eb.ref('excluded.location'),
              region: eb.ref('excluded.region'),
              linkedin_url: eb.ref('excluded.linkedin_url'),
              employee_count: eb.ref('excluded.employee_count'),
              is_hot_company: eb.ref('excluded.is_hot_company'),
              traffic_type: eb.ref('excluded.traffic_type'),
              ad_platform: eb.ref('excluded.ad_platform'),
              csv_cells: eb.ref('excluded.csv_cells'),
            })),
          )
          .returning('pk')
          .execute();
        const pks = inserted.map((r) => r.pk);
        loaded.push(...pks);
        // Their stored JSON, and their people's `companyData`, follow the new values.
        await renderCompanies(trx, sql<boolean>`pk in (${sql.join(pks)})`);
        await renderPeopleTails(trx, sql<boolean>`p.company_pk in (${sql.join(pks)})`);
        onProgress?.(i + pks.length);
      }
      await refreshCompanyActivity(trx, loaded);
      await refreshSiteSets(trx, accountId, 'company', loaded);
    });
    return rows.length;
  }

  /** Inserts or replaces people by id, with their visits per site; a person first seen on a site is `person.identified`. */
  async loadPeople(accountId: string, people: PersonInput[], sites: Site[], nowSeconds: number, onProgress?: LoadProgress): Promise<number> {
    const siteByDomain = new Map(sites.map((s) => [s.domain, s]));
    const siteByPk = new Map(sites.map((s) => [s.pk, s]));
    const prepared = people.map((p, i) => preparePerson(accountId, p, i, siteByDomain));
    await this.db.transaction().execute(async (trx) => {
      const identifiedTo = await subscribedEndpoints(trx, accountId, 'person.identified');
      const identified: IdentifiedPair[] = [];
      const companyIds = [...new Set(people.map((p) => p.companyId).filter((id): id is string => !!id))];
      const companyPks = await pksById(trx, 'companies', accountId, companyIds);
      // Companies whose figures change: the ones these people join, and the ones they leave.
      const affected = new Set<number>([...companyPks.values(), ...(await previousCompanies(trx, accountId, prepared.map((p) => p.row.id)))]);
      for (let i = 0; i < prepared.length; i += CHUNK) {
        const batch = prepared.slice(i, i + CHUNK);
        const rows = batch.map(({ row, companyId }, j) => {
          const companyPk = companyId ? companyPks.get(companyId) : null;
          if (companyPk === undefined) throw new AdminError(`people[${i + j}].companyId ${companyId} is not a company of this account`);
          return { ...row, company_pk: companyPk };
        });
        const inserted = await trx
          .insertInto('people')
          .values(rows)
          .onConflict((oc) =>
            oc.columns(['account_id', 'id']).doUpdateSet(() => {
              const set: Record<string, unknown> = {};
              for (const column of Object.keys(rows[0]!)) if (column !== 'account_id' && column !== 'id') set[column] = sql.ref(`excluded.${column}`);
              return set;
            }),
          )
          .returning(['pk', 'id'])
          .execute();
        const pkById = new Map(inserted.map((r) => [r.id, r.pk]));
        const pks = inserted.map((r) => r.pk);
        const before = identifiedTo.length > 0 ? await visitedSites(trx, pks) : new Set<string>();
        await trx.deleteFrom('person_sites').where('person_pk', 'in', pks).execute();
        // Each visit carries what lists order and filter its person by (migration 0012).
        const visits = batch.flatMap(({ row, visits }) =>
          visits.map((v) => ({ ...v, person_pk: pkById.get(row.id)!, person_id: row.id, person_last_seen: row.last_seen, person_is_hot_lead: row.is_hot_lead, person_site_count: visits.length })),
        );
        for (let k = 0; k < visits.length; k += CHUNK) await trx.insertInto('person_sites').values(visits.slice(k, k + CHUNK)).execute();
        await renderPeople(trx, sql<boolean>`p.pk in (${sql.join(pks)})`);
        await renderPersonSites(trx, sql<boolean>`person_pk in (${sql.join(pks)})`);
        await refreshSiteSets(trx, accountId, 'person', pks);
        if (identifiedTo.length > 0) {
          for (const v of visits) if (!before.has(`${v.person_pk}:${v.site_pk}`)) identified.push({ personPk: v.person_pk, site: siteByPk.get(v.site_pk)! });
        }
        onProgress?.(i + batch.length);
      }
      await refreshCompanyActivity(trx, [...affected]);
      await refreshSiteSets(trx, accountId, 'company', [...affected]);
      await writeIdentified(trx, identifiedTo, identified, nowSeconds);
    });
    return prepared.length;
  }

  /**
   * Inserts events; an eventId already loaded in the account is left as it was. The new ones of
   * each (person, site) become one `person.activity` delivery per subscribed endpoint.
   */
  async loadEvents(accountId: string, events: EventInput[], sites: Site[], nowSeconds: number, onProgress?: LoadProgress): Promise<number> {
    const siteByDomain = new Map(sites.map((s) => [s.domain, s]));
    const siteByPk = new Map(sites.map((s) => [s.pk, s]));
    let inserted = 0;
    await this.db.transaction().execute(async (trx) => {
      const tally = new EventTally();
      const activityTo = await subscribedEndpoints(trx, accountId, 'person.activity');
      const fresh: NewEvent[] = [];
      const personPks = await pksById(trx, 'people', accountId, [...new Set(events.map((e) => String(e.personId)))]);
      const visited = await visitedSites(trx, [...personPks.values()]);
      for (let i = 0; i < events.length; i += CHUNK) {
        const rows = events.slice(i, i + CHUNK).map((e, j) => prepareEvent(accountId, e, i + j, siteByDomain, personPks));
        for (const [j, { row }] of rows.entries()) {
          // An event on a site the person never visited would be invisible to that site's key: refuse it.
          if (!visited.has(`${row.person_pk}:${row.site_pk}`)) {
            throw new AdminError(`events[${i + j}]: person ${events[i + j]!.personId} has no visits on ${events[i + j]!.domain}; load their visits first`);
          }
        }
        // RETURNING lists only the rows inserted: events already loaded are neither news nor counted again.
        const returned = await trx.insertInto('events').values(rows.map((r) => r.row)).onConflict((oc) => oc.doNothing()).returning(['event_id', 'site_pk', 'ts']).execute();
        inserted += returned.length;
        tally.add(returned);
        if (activityTo.length > 0) {
          const added = new Set(returned.map((r) => r.event_id));
          for (const { row } of rows) {
            if (!added.delete(row.event_id)) continue;
            fresh.push({ personPk: row.person_pk, site: siteByPk.get(row.site_pk)!, eventId: row.event_id, ts: row.ts, body: row.body });
          }
        }
        const pages = new Map(rows.map((r) => [`${r.row.person_pk} ${r.path}`, { person_pk: r.row.person_pk, path: r.path }]));
        await trx.insertInto('person_pages').values([...pages.values()]).onConflict((oc) => oc.doNothing()).execute();
        onProgress?.(i + rows.length);
      }
      await tally.save(trx, accountId);
      await writeActivity(trx, activityTo, fresh, this.options.activityCap, nowSeconds);
    });
    return inserted;
  }
}

function preparePerson(accountId: string, p: PersonInput, i: number, siteByDomain: Map<string, Site>) {
  checkInput('people', p, i);
  const at = `people[${i}]`;
  const visits = p.visits.map((v, k) => {
    const domain = normalizeDomain(v.domain);
    const site = domain ? siteByDomain.get(domain) : undefined;
    if (!site) throw new AdminError(`${at}.visits[${k}].domain ${v.domain} is not a registered site of this account`);
    const first = toSeconds(v.firstSeen, `${at}.visits[${k}].firstSeen`);
    const last = toSeconds(v.lastSeen, `${at}.visits[${k}].lastSeen`);
    if (first > last) throw new AdminError(`${at}.visits[${k}].firstSeen is after lastSeen`);
    return { site_pk: site.pk, visit_count: v.visitCount, first_seen: first, last_seen: last };
  });
  if (new Set(visits.map((v) => v.site_pk)).size !== visits.length) throw new AdminError(`${at}.visits names a site twice`);
  const latest = visits.reduce((a, b) => (b.last_seen > a.last_seen ? b : a));
  const row = {
    account_id: accountId,
    id: p.id,
    email: p.email ?? null,
    business_email: p.businessEmail ?? null,
    personal_email: p.personalEmail ?? null,
    first_name: p.firstName ?? null,
    last_name: p.lastName ?? null,
    title: p.title ?? null,
    company: p.company ?? null,
    location: p.location ?? null,
    region: p.region ?? null,
    linkedin_url: p.linkedinUrl ?? null,
    phone: p.phone ?? null,
    profile_image_url: p.profileImageUrl ?? null,
    visit_count: visits.reduce((n, v) => n + v.visit_count, 0),
    first_seen: Math.min(...visits.map((v) => v.first_seen)),
    last_seen: latest.last_seen,
    is_hot_lead: p.isHotLead ? 1 : 0,
    classified_seniority: p.classifiedSeniority ?? null,
    classified_job_function: p.classifiedJobFunction ?? null,
    traffic_type: p.trafficType ?? null,
    ad_platform: p.adPlatform ?? null,
    last_site_pk: latest.site_pk,
    campaign: p.campaign ?? null,
    crm_status: p.crmStatus ?? 'not_in_crm',
  };
  return { row: { ...row, csv_head: personCsvHead(row), csv_tail: personCsvTail(row) }, visits, companyId: p.companyId ?? null };
}

function prepareEvent(accountId: string, e: EventInput, i: number, siteByDomain: Map<string, Site>, personPks: Map<string, number>) {
  checkInput('events', e, i);
  const at = `events[${i}]`;
  const personPk = personPks.get(e.personId);
  if (personPk === undefined) throw new AdminError(`${at}.personId ${e.personId} is not a person of this account`);
  const domain = normalizeDomain(e.domain);
  const site = domain ? siteByDomain.get(domain) : undefined;
  if (!site) throw new AdminError(`${at}.domain ${e.domain} is not a registered site of this account`);
  const ts = toSeconds(e.timestamp, `${at}.timestamp`);
  // The stored body is the event exactly as the API returns it: known fields first, then
  // whatever else this type carries, then the client attribution.
  const body: Record<string, unknown> = { eventId: e.eventId, sessionId: e.sessionId, eventType: e.eventType, timestamp: isoSeconds(ts), url: e.url };
  for (const [field, value] of Object.entries(e)) {
    if (field === 'personId' || value === undefined || value === null) continue;
    if (field in body || field === 'domain' || field === 'clientRef') continue;
    body[field] = value;
  }
  body.domain = site.domain;
  if (site.clientRef !== null) body.clientRef = site.clientRef;
  const row = { account_id: accountId, person_pk: personPk, site_pk: site.pk, event_id: e.eventId, event_type: e.eventType, ts, body: JSON.stringify(body) };
  return { row, path: pagePath(String(body.url)) };
}

/** Internal keys of rows by public id, for the ids given. */
async function pksById(trx: Transaction<Database>, table: 'people' | 'companies', accountId: string, ids: string[]) {
  const map = new Map<string, number>();
  for (let i = 0; i < ids.length; i += CHUNK) {
    const rows = await trx
      .selectFrom(table)
      .select(['pk', 'id'])
      .where('account_id', '=', accountId)
      .where('id', 'in', ids.slice(i, i + CHUNK))
      .execute();
    for (const r of rows) map.set(r.id, r.pk);
  }
  return map;
}

/** `person_pk:site_pk` for every site the given people visited. */
async function visitedSites(trx: Transaction<Database>, personPks: number[]): Promise<Set<string>> {
  const visited = new Set<string>();
  for (let i = 0; i < personPks.length; i += CHUNK) {
    const rows = await trx.selectFrom('person_sites').select(['person_pk', 'site_pk']).where('person_pk', 'in', personPks.slice(i, i + CHUNK)).execute();
    for (const r of rows) visited.add(`${r.person_pk}:${r.site_pk}`);
  }
  return visited;
}

/** The companies the given people belong to now, before a reload replaces them. */
async function previousCompanies(trx: Transaction<Database>, accountId: string, personIds: string[]): Promise<number[]> {
  const pks: number[] = [];
  for (let i = 0; i < personIds.length; i += CHUNK) {
    const rows = await trx
      .selectFrom('people')
      .select('company_pk')
      .where('account_id', '=', accountId)
      .where('id', 'in', personIds.slice(i, i + CHUNK))
      .where('company_pk', 'is not', null)
      .execute();
    for (const r of rows) pks.push(r.company_pk!);
  }
  return pks;
}

/** Recomputes the given companies' activity, account-wide and per site, from their people's visits. */
async function refreshCompanyActivity(trx: Transaction<Database>, companyPks: number[]): Promise<void> {
  for (let i = 0; i < companyPks.length; i += CHUNK) {
    const pks = companyPks.slice(i, i + CHUNK);
    await trx.deleteFrom('company_sites').where('company_pk', 'in', pks).execute();
    await trx
      .insertInto('company_sites')
      .columns(['company_pk', 'site_pk', 'company_id', 'visit_count', 'first_seen', 'last_seen'])
      .expression((eb) =>
        eb
          .selectFrom('person_sites as ps')
          .innerJoin('people as p', 'p.pk', 'ps.person_pk')
          .innerJoin('companies as c', 'c.pk', 'p.company_pk')
          .select((e) => [
            'c.pk',
            'ps.site_pk',
            'c.id',
            e.fn.sum<number>('ps.visit_count').as('visit_count'),
            e.fn.min<number>('ps.first_seen').as('first_seen'),
            e.fn.max<number>('ps.last_seen').as('last_seen'),
          ])
          .where('p.company_pk', 'in', pks)
          .groupBy(['c.pk', 'ps.site_pk']),
      )
      .execute();
    await renderCompanySites(trx, sql<boolean>`company_pk in (${sql.join(pks)})`);
    await trx
      .updateTable('companies')
      .set((eb) => {
        // A company's figures are its people's; with no people left, none visited since it was loaded.
        const ofCompany = eb.selectFrom('people as p').whereRef('p.company_pk', '=', 'companies.pk');
        return {
          visit_count: eb.fn.coalesce(ofCompany.select((e) => e.fn.sum<number>('p.visit_count').as('v')), eb.val(0)),
          first_seen: eb.fn.coalesce(ofCompany.select((e) => e.fn.min<number>('p.first_seen').as('v')), eb.ref('companies.loaded_at')),
          last_seen: eb.fn.coalesce(ofCompany.select((e) => e.fn.max<number>('p.last_seen').as('v')), eb.ref('companies.loaded_at')),
        };
      })
      .where('pk', 'in', pks)
      .execute();
    await renderCompanyFigures(trx, sql<boolean>`pk in (${sql.join(pks)})`);
  }
}
