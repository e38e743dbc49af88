import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createApi, ManualClock, type Api, type CompanyInput, type Database, type PersonInput } from '../../adapters/node/index.ts';
import { companyJsonSql, storedCompanyJsonSql } from '../../core/store/company-row.ts';
import { dialectOf } from '../../core/store/dialect/index.ts';
import { accountPersonJsonSql, personJsonAtSiteSql, personJsonSql, storedPersonJsonSql, withSite } from '../../core/store/person-row.ts';
import { COMPANY_ACTIVITY, latestPage, PERSON_ACTIVITY, withFigures } from '../../core/store/scoped-activity.ts';
import { STORED_TEXT_COLUMNS } from '../../core/store/stored-text.ts';
import { BACKENDS, reopenableDatabases, type OpenedDatabase, type ReopenableDatabases } from '../support/backends.ts';
import { undoMigrationsFrom } from '../support/undo-migrations.ts';

/**
 * People and companies are served from stored JSON text (core/store/person-row.ts,
 * company-row.ts), rewritten as data is loaded. Whatever is loaded, reloaded or moved, that text
 * must equal what the reference rendering (`personJsonSql`, `companyJsonSql`: the mapping the
 * API used before it stored text) writes from the rows, in every view, byte for byte.
 */

const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** Text JSON must escape, or must not (as in test/postgres/byte-identical.test.ts). */
const TRICKY = ['He said "hi"', 'back\\slash \\n', 'line\nbreak\r\nand\ttab', 'bell\u0007 \u0001\u001f', 'Zoë Ångström – 東京', 'emoji 😀👍🏽', 'sep\u2028arator\u2029', "apostrophe ' </script>", '\u007f del', 'c1 \u0085\u009f controls', ''];
const tricky = (i: number) => TRICKY[i % TRICKY.length]!;

/** A domain with a subdomain (one scoped key reads both), a client label JSON must escape, and a site with no label. */
const SITES = [
  { domain: 'alpha.example', clientRef: 'cl "alpha" \\ é' },
  { domain: 'shop.alpha.example', clientRef: 'alpha' },
  { domain: 'beta.example', clientRef: null },
];

function companies(): CompanyInput[] {
  return [0, 1, 2].map((i) => ({ id: `co_${i}`, name: `Co ${['He said "hi"', 'back\\slash', 'Zoë 東京 😀 sep\u2028arator'][i]}`, domain: i === 2 ? null : `co${i}.example`, location: tricky(i + 4), employeeCount: i === 1 ? null : 10 * i, isHotCompany: i === 0 }));
}

function person(i: number, overrides: Partial<PersonInput> = {}): PersonInput {
  const last = NOW - (i % 9) * 3_600_000;
  const visits = [{ domain: SITES[i % 3]!.domain, visitCount: 1 + (i % 4), firstSeen: iso(last - 7 * DAY), lastSeen: iso(last) }];
  if (i % 2 === 0) visits.push({ domain: SITES[(i + 1) % 3]!.domain, visitCount: 2, firstSeen: iso(last - 30 * DAY), lastSeen: iso(last - (i % 3) * DAY) });
  return {
    id: `per_${String(i).padStart(3, '0')}`,
    email: `${i}@mail.example`,
    firstName: tricky(i),
    lastName: i % 5 === 0 ? null : tricky(i + 3),
    title: tricky(i + 1),
    company: `Co ${i % 3}`,
    companyId: i % 4 === 3 ? null : `co_${i % 3}`,
    phone: i % 2 ? '+1 555 0100' : null,
    isHotLead: i % 3 === 0,
    classifiedSeniority: tricky(i + 2),
    visits,
    ...overrides,
  };
}

/** Every row's stored text against the reference rendering of the same rows, in every view. */
async function expectStoredTextRendered(db: Kysely<Database>): Promise<void> {
  const dialect = dialectOf(db);
  for (const [table, columns] of Object.entries(STORED_TEXT_COLUMNS)) {
    for (const column of columns) {
      const missing = await db.selectFrom(table as keyof Database).select(sql<number>`count(*)`.as('n')).where(sql.ref(column), 'is', null).executeTakeFirstOrThrow();
      expect(Number(missing.n), `${table}.${column} left empty`).toBe(0);
    }
  }
  // Account-wide: the person's figures, attributed to their latest site.
  const people = await accountPeople(db);
  expect(people.length).toBeGreaterThan(0);
  for (const r of people) expect(r.stored, r.id).toBe(r.rendered);
  // Per site: one site's figures (a scoped key of that site), and account-wide figures attributed to it (a site filter).
  const visits = await db
    .selectFrom('person_sites as ps')
    .innerJoin('people as p', 'p.pk', 'ps.person_pk')
    .leftJoin('companies as c', 'c.pk', 'p.company_pk')
    .innerJoin('sites as s', 's.pk', 'ps.site_pk')
    .select([
      'p.id', 's.domain', 's.client_ref',
      personJsonSql('ps', dialect).as('siteRendered'), storedPersonJsonSql(sql`ps.json_figures`, sql`ps.json_site`).as('siteStored'),
      personJsonSql('p', dialect).as('accountRendered'), personJsonAtSiteSql().as('accountStored'),
    ])
    .execute();
  for (const r of visits) {
    const site = { domain: r.domain, clientRef: r.client_ref };
    expect(r.siteStored, `${r.id} on ${r.domain}`).toBe(withSite(r.siteRendered, site));
    expect(r.accountStored, `${r.id} filtered to ${r.domain}`).toBe(withSite(r.accountRendered, site));
  }
  const companyRows = await db.selectFrom('companies as c').select(['c.id', companyJsonSql('c', dialect).as('rendered'), storedCompanyJsonSql(sql`c.json_figures`).as('stored')]).execute();
  for (const r of companyRows) expect(r.stored, r.id).toBe(r.rendered);
  const companySites = await db
    .selectFrom('company_sites as cs')
    .innerJoin('companies as c', 'c.pk', 'cs.company_pk')
    .select(['c.id', 'cs.site_pk', companyJsonSql('cs', dialect).as('rendered'), storedCompanyJsonSql(sql`cs.json_figures`).as('stored')])
    .execute();
  expect(companySites.length).toBeGreaterThan(0);
  for (const r of companySites) expect(r.stored, `${r.id} on site ${r.site_pk}`).toBe(r.rendered);
}

/** GETs a path with a key: its status and body text. */
async function get(api: Api, key: string, path: string): Promise<{ status: number; text: string }> {
  const res = await api.fetch(new Request(`http://test.local${path}`, { headers: { 'x-api-key': key } }));
  return { status: res.status, text: await res.text() };
}

/** Every item of a list, walked page by page, as the JSON text the API sent for it. */
async function walk(api: Api, key: string, path: string): Promise<string[]> {
  const items: string[] = [];
  let cursor: string | undefined;
  do {
    const { status, text } = await get(api, key, `${path}${path.includes('?') ? '&' : '?'}limit=40${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(status, path).toBe(200);
    const body = JSON.parse(text) as { data: unknown[]; pagination: { nextCursor?: string } };
    // Each item's own text: re-serialising what was parsed would hide escaping differences.
    const data = text.slice('{"data":['.length, text.lastIndexOf('],"pagination":'));
    items.push(...splitItems(data, body.data.length));
    cursor = body.pagination.nextCursor;
  } while (cursor);
  return items;
}

/** Splits `{…},{…}` into its objects' texts (braces inside strings are skipped). */
function splitItems(text: string, count: number): string[] {
  const items: string[] = [];
  let depth = 0;
  let start = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{') depth++ === 0 && (start = i);
    else if (ch === '}' && --depth === 0) items.push(text.slice(start, i + 1));
  }
  expect(items).toHaveLength(count);
  return items;
}

/**
 * A scoped key over several sites: its people and companies as the reference rendered them,
 * figures summed over the sites at query time, each person attributed to their latest site there.
 */
async function expectScopedPagesRendered(api: Api, key: string, domain: string): Promise<void> {
  const db = api.db;
  const dialect = dialectOf(db);
  const sites = await db.selectFrom('sites').select(['pk', 'domain', 'client_ref']).where((eb) => eb.or([eb('domain', '=', domain), eb('domain', 'like', `%.${domain}`)])).execute();
  expect(sites.length).toBeGreaterThan(1);
  const sitePks = sites.map((s) => sql.lit(s.pk));
  // Every owner's latest row among the sites, in list order (the keyset walk with no bound).
  const all = (activity: typeof PERSON_ACTIVITY) => latestPage(activity, { sitePks, conditions: [], after: null, take: sql.lit(1_000_000) }, dialect);
  const people = await db
    .selectFrom(withFigures(PERSON_ACTIVITY, sitePks, all(PERSON_ACTIVITY), 'ps'))
    .innerJoin('people as p', 'p.pk', 'ps.owner_pk')
    .leftJoin('companies as c', 'c.pk', 'p.company_pk')
    .select([personJsonSql('ps', dialect).as('json'), 'ps.site_pk', 'ps.id'])
    .orderBy('ps.last_seen', 'desc')
    .orderBy('ps.id', 'desc')
    .execute();
  const expected = people.map((r) => {
    const site = sites.find((s) => s.pk === r.site_pk)!;
    return withSite(r.json, { domain: site.domain, clientRef: site.client_ref });
  });
  expect(expected.length).toBeGreaterThan(0);
  expect(await walk(api, key, '/v1/people')).toEqual(expected);
  expect((await get(api, key, `/v1/people/${people[0]!.id}`)).text).toBe(`{"data":${expected[0]}}`);
  const companies = await db
    .selectFrom(withFigures(COMPANY_ACTIVITY, sitePks, all(COMPANY_ACTIVITY), 'cs'))
    .innerJoin('companies as c', 'c.pk', 'cs.owner_pk')
    .select(companyJsonSql('cs', dialect).as('json'))
    .orderBy('cs.last_seen', 'desc')
    .orderBy('cs.id', 'desc')
    .execute();
  expect(await walk(api, key, '/v1/companies')).toEqual(companies.map((r) => r.json));
}

/**
 * An account key's people, walked page by page with and without a lastSeen bound, as the
 * reference rendered them in list order: what a page reads from their JSON filed in page order.
 */
async function expectAccountPagesRendered(api: Api, key: string): Promise<void> {
  const expected = await accountPeople(api.db);
  expect(expected.length).toBeGreaterThan(40);
  expect(await walk(api, key, '/v1/people')).toEqual(expected.map((r) => r.rendered));
  const since = expected[Math.floor(expected.length / 2)]!.lastSeen;
  const after = `/v1/people?last_seen_after=${encodeURIComponent(new Date(since * 1000).toISOString())}`;
  expect(await walk(api, key, after)).toEqual(expected.filter((r) => r.lastSeen > since).map((r) => r.rendered));
}

/** The account's people in list order: each as the reference renders them for an account key, and as stored for it. */
async function accountPeople(db: Kysely<Database>): Promise<{ id: string; lastSeen: number; rendered: string; stored: string }[]> {
  const rows = await db
    .selectFrom('people as p')
    .leftJoin('companies as c', 'c.pk', 'p.company_pk')
    .innerJoin('sites as s', 's.pk', 'p.last_site_pk')
    .select(['p.id', 'p.last_seen', 's.domain', 's.client_ref', personJsonSql('p', dialectOf(db)).as('rendered'), accountPersonJsonSql().as('stored')])
    .orderBy('p.last_seen', 'desc')
    .orderBy('p.id', 'desc')
    .execute();
  return rows.map((r) => ({ id: r.id, lastSeen: Number(r.last_seen), rendered: withSite(r.rendered, { domain: r.domain, clientRef: r.client_ref }), stored: r.stored }));
}

/** An API on a fresh database from `databases` (a file for SQLite, so it can be opened again), with the sites and companies loaded. */
async function openFresh(databases: ReopenableDatabases): Promise<{ api: Api; database: OpenedDatabase['database'] }> {
  const database = await databases.fresh();
  const api = databases.keep(await openApi(database));
  await api.admin.createAccount({ id: 'acc_a', name: 'A' });
  for (const site of SITES) await api.admin.registerSite('acc_a', site);
  await api.admin.loadCompanies('acc_a', companies());
  return { api, database };
}

function openApi(database: OpenedDatabase['database']): Promise<Api> {
  return createApi({ database, clock: new ManualClock(NOW), secret: 'stored-text-secret', rateLimits: { accountPerHour: 1_000_000, scopedKeyPerHour: 1_000_000 }, onError: () => undefined });
}

describe.each(BACKENDS)('stored JSON of people and companies ($name)', (backend) => {
  const databases = reopenableDatabases(backend);

  it('equals the reference rendering in every view through loads, reloads, moves and company changes', async () => {
    const { api } = await openFresh(databases);
    const { admin, db } = api;
    const accountKey = (await admin.issueAccountKey('acc_a')).key;
    const alphaKey = (await admin.issueScopedKey('acc_a', 'alpha.example')).key;
    await admin.loadPeople('acc_a', Array.from({ length: 24 }, (_, i) => person(i)));
    await expectStoredTextRendered(db);
    await expectScopedPagesRendered(api, alphaKey, 'alpha.example');

    // A reload that changes the fields, drops one site and makes another the latest (the attribution moves).
    await admin.loadPeople('acc_a', [person(0, { firstName: 'Renamed "0"', isHotLead: false, visits: [{ domain: 'beta.example', visitCount: 9, firstSeen: iso(NOW - 90 * DAY), lastSeen: iso(NOW + 60_000) }] })]);
    await admin.loadPeople('acc_a', [person(2, { visits: [...person(2).visits, { domain: 'shop.alpha.example', visitCount: 5, firstSeen: iso(NOW - DAY), lastSeen: iso(NOW + 120_000) }] })]);
    await expectStoredTextRendered(db);
    // Moving to another company, and to none.
    await admin.loadPeople('acc_a', [person(4, { companyId: 'co_2' }), person(5, { companyId: null })]);
    await expectStoredTextRendered(db);
    // A company reloaded: its people's companyData follows, and a new company arrives.
    await admin.loadCompanies('acc_a', [{ id: 'co_1', name: 'Co One \\ "renamed"', domain: 'one.example', standardizedIndustry: tricky(6), employeeCount: 77 }, { id: 'co_3', name: tricky(5) }]);
    await expectStoredTextRendered(db);
    const renamed = JSON.parse((await get(api, accountKey, '/v1/people/per_001')).text) as { data: { companyData: { name: string; employeeCount: number } } };
    expect(renamed.data.companyData).toMatchObject({ name: 'Co One \\ "renamed"', employeeCount: 77 });
    // Events change no figure.
    await admin.loadEvents('acc_a', [{ eventId: 'evt_1', personId: 'per_001', sessionId: 's', eventType: 'page_view', timestamp: iso(NOW), url: 'https://shop.alpha.example/', domain: 'shop.alpha.example' }]);
    await expectStoredTextRendered(db);
    // A load of more people than one statement's chunk (400), some of them reloaded.
    await admin.loadPeople('acc_a', Array.from({ length: 450 }, (_, i) => person(i + 10, { companyId: `co_${i % 4}` })));
    await expectStoredTextRendered(db);
    await expectScopedPagesRendered(api, alphaKey, 'alpha.example');
    // Some of them reloaded seen later, some earlier: each moves to its new place in the account's list, once.
    await admin.loadPeople('acc_a', [10, 11, 12].map((i) => person(i + 10, { companyId: `co_${i % 4}`, visits: [{ domain: 'beta.example', visitCount: 3, firstSeen: iso(NOW - 90 * DAY), lastSeen: iso(NOW - (i - 9) * 20 * DAY) }] })));
    await admin.loadPeople('acc_a', [person(13, { visits: [{ domain: 'alpha.example', visitCount: 1, firstSeen: iso(NOW), lastSeen: iso(NOW + 600_000) }] })]);
    await expectStoredTextRendered(db);
    await expectAccountPagesRendered(api, accountKey);
  });

  // 0007 added every piece; 0016 the account view's whole JSON beside pieces already rendered; 0017 files that JSON in page order; 0019 kept it as bytes; 0020 drops it.
  it.each(['0007_stored_json', '0016_person_json_whole', '0017_people_whole', '0019_people_whole_bytes', '0020_drop_people_whole'] as const)('fills the stored text of a database loaded before migration %s, and serves the same pages', async (migration) => {
    const { api, database } = await openFresh(databases);
    const keys = {
      account: (await api.admin.issueAccountKey('acc_a')).key,
      alpha: (await api.admin.issueScopedKey('acc_a', 'alpha.example')).key,
      beta: (await api.admin.issueScopedKey('acc_a', 'beta.example')).key,
    };
    await api.admin.loadPeople('acc_a', Array.from({ length: 40 }, (_, i) => person(i)));
    const paths = ['/v1/people', '/v1/people?domain=shop.alpha.example', '/v1/people?client_ref=alpha&hot_leads=true', '/v1/companies', '/v1/people/per_002', '/v1/companies/co_1'];
    const answers = async (current: Api) => {
      const all: string[] = [];
      for (const key of Object.values(keys)) for (const path of paths) all.push(`${path}: ${(await get(current, key, path)).text}`);
      return all;
    };
    const before = await answers(api);
    // The database as the code before that migration left it, and it (and what followed) not recorded.
    await undoMigrationsFrom(api.db, migration);
    await databases.close(api);

    const reopened = databases.keep(await openApi(database));
    await expectStoredTextRendered(reopened.db);
    expect(await answers(reopened)).toEqual(before);
    const pending = await reopened.db.selectFrom('meta').select('key').where('key', '=', 'stored_text_pending').executeTakeFirst();
    expect(pending).toBeUndefined();
  });
});
