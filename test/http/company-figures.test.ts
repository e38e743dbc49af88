import { describe, expect, it } from 'vitest';
import type { CompanyInput } from '../../adapters/node/index.ts';
import { errorCode } from '../support/client.ts';
import { MATRIX, serveWorld, type Client } from '../support/targets.ts';
import { isAfter, positionOf } from '../support/walks.ts';
import { NOW, SITES, type World } from '../support/world.ts';

const DAY_S = 86_400;
const DOMAINS = SITES.map((s) => s.domain);

/** Whether rows are strictly in lastSeen-descending-then-id-descending order. */
const inKeysetOrder = (rows: any[]) => rows.every((row, i) => i === 0 || isAfter(row, positionOf(rows[i - 1])));

/** The figures a company takes from a set of people as the API lists them: visits summed, dates at their extremes. */
function figuresFrom(people: any[]): Map<string, { id: string; visitCount: number; firstSeen: string; lastSeen: string }> {
  const byId = new Map<string, { id: string; visitCount: number; firstSeen: string; lastSeen: string }>();
  for (const p of people) {
    if (!p.companyData) continue;
    const id = p.companyData.companyId;
    const c = byId.get(id) ?? { id, visitCount: 0, firstSeen: p.firstSeen, lastSeen: p.lastSeen };
    c.visitCount += p.visitCount;
    // Same format everywhere (…Z, whole seconds), so text order is time order.
    if (p.firstSeen < c.firstSeen) c.firstSeen = p.firstSeen;
    if (p.lastSeen > c.lastSeen) c.lastSeen = p.lastSeen;
    byId.set(id, c);
  }
  return byId;
}

/** The sites a domain/client_ref query selects (docs/sandbox.md: a domain with its subdomains, case-insensitively; client_ref exactly). */
function sitesOf(query: string): string[] {
  const params = new URLSearchParams(query);
  const domain = params.get('domain')?.toLowerCase();
  const ref = params.get('client_ref');
  return SITES.filter((s) => (domain === undefined || s.domain === domain || s.domain.endsWith(`.${domain}`)) && (ref === null || s.clientRef === ref)).map((s) => s.domain);
}

const FILTERS = [
  'domain=alpha.example',
  'domain=shop.alpha.example',
  'domain=badalpha.example',
  'domain=beta.example',
  'domain=gamma.example',
  'client_ref=alpha',
  'client_ref=beta',
  'client_ref=bad',
  'domain=alpha.example&client_ref=alpha',
  'domain=beta.example&client_ref=alpha',
  'domain=nobody.example',
];

// docs/implementation-choices.md, "Scope and filters": an account key with domain/client_ref narrows which companies
// are listed, but their figures stay account-wide; filtered views count companies with people
// seen on their sites. So under a filter the companies are exactly those of the people the same
// filter lists, and each one's figures are those of all its people, as the unfiltered list shows.
describe.each(MATRIX)('companies and stats under filters with an account key ($name)', (target) => {
  let world: World;
  let client: Client;
  serveWorld(target, {}, (w, c) => ((world = w), (client = c)));

  it('lists under each filter exactly the companies of the people that filter lists, with their account-wide figures, in lastSeen then id order', async () => {
    const everyone = (await client.walk('/v1/people', world.accountKey)).rows;
    const accountWide = figuresFrom(everyone);
    let narrowedAway = 0;
    for (const query of FILTERS) {
      const people = (await client.walk(`/v1/people?${query}`, world.accountKey)).rows;
      const ids = new Set(people.filter((p) => p.companyData).map((p) => p.companyData.companyId as string));
      const { rows } = await client.walk(`/v1/companies?${query}`, world.accountKey, 3);
      const expected = [...ids].map((id) => accountWide.get(id)!).sort((a, b) => (a.lastSeen === b.lastSeen ? (a.id < b.id ? 1 : -1) : a.lastSeen < b.lastSeen ? 1 : -1));
      expect(rows.map((c) => ({ id: c.id, visitCount: c.visitCount, firstSeen: c.firstSeen, lastSeen: c.lastSeen })), query).toEqual(expected);
      expect(inKeysetOrder(rows), query).toBe(true);
      for (const row of rows) expect((await client.get(`/v1/companies/${row.id}`, world.accountKey)).body.data, `${query}: ${row.id}`).toEqual(row);
      // Where the filter left some of a company's people out, its figures still count them.
      const filteredOnly = figuresFrom(people);
      narrowedAway += rows.filter((c) => filteredOnly.get(c.id)!.visitCount !== c.visitCount).length;
    }
    expect(narrowedAway, 'the fixture has companies with people outside some filters').toBeGreaterThan(0);
  });

  it('counts under each filter, in /v1/stats, the people and companies the same filter lists, and the recent events on the selected sites', async () => {
    for (const query of FILTERS) {
      const people = (await client.walk(`/v1/people?${query}`, world.accountKey)).rows;
      const companies = (await client.walk(`/v1/companies?${query}`, world.accountKey)).rows;
      const sites = sitesOf(query);
      for (const days of [30, 2]) {
        const since = Math.floor(NOW / 1000) - days * DAY_S;
        const recent = world.events.filter((e) => sites.includes(e.domain) && Date.parse(String(e.timestamp)) / 1000 > since).length;
        const stats = await client.get(`/v1/stats?${query}&days=${days}`, world.accountKey);
        expect(stats.status, query).toBe(200);
        expect(stats.body.data, `${query} days=${days}`).toMatchObject({ totalPeople: people.length, totalCompanies: companies.length, recentEvents: recent });
      }
    }
  });

  it('applies last_seen_after to the account-wide lastSeen of the companies a filter lists', async () => {
    const all = (await client.walk('/v1/companies?domain=beta.example', world.accountKey)).rows;
    const cutoff = all[Math.floor(all.length / 2)].lastSeen;
    const { rows } = await client.walk(`/v1/companies?domain=beta.example&last_seen_after=${cutoff}`, world.accountKey);
    expect(rows).toEqual(all.filter((c) => c.lastSeen > cutoff));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(all.length);
  });
});

// docs/implementation-choices.md, "Resources": a company with no identified people has visitCount 0 and the time it was
// loaded as its dates; "Scope and filters": the unfiltered account view counts every loaded
// company, while filtered and scoped views show only companies with people seen on their sites.
describe.each(MATRIX)('companies with no people in view ($name)', (target) => {
  let world: World;
  let client: Client;
  serveWorld(target, {}, (w, c) => ((world = w), (client = c)), { per: 'test' });

  const EMPTY: CompanyInput = { id: 'co_empty', name: 'Nobody Yet Inc', domain: 'nobody-yet.example', standardizedIndustry: 'Software', employeeCount: 5 };
  /** Loads a company at a chosen moment, then puts the clock back to now. */
  const loadAt = async (at: number, companies: CompanyInput[]) => {
    world.clock.set(at);
    await world.api.admin.loadCompanies('acc_a', companies);
    world.clock.set(NOW);
  };
  /** A 404 body with the id blanked, to compare "outside your view" with "does not exist". */
  const notFoundBody = async (id: string, key: string) => {
    const reply = await client.get(`/v1/companies/${id}`, key);
    expect(reply.status, `${id} through a key that should not see it`).toBe(404);
    expect(errorCode(reply)).toBe('not_found');
    return JSON.stringify(reply.body).replaceAll(id, '<id>');
  };

  it('lists a company loaded with no people account-wide with visitCount 0 and its load time as both dates, in its keyset place, and counts it', async () => {
    const before = (await client.get('/v1/stats', world.accountKey)).body.data.totalCompanies;
    // Loaded five and a half hours ago: between companies last seen five and six hours ago.
    await loadAt(NOW - 5.5 * 3_600_000, [EMPTY]);
    const { rows } = await client.walk('/v1/companies', world.accountKey, 5);
    const row = rows.find((c) => c.id === 'co_empty');
    expect(row).toMatchObject({ id: 'co_empty', name: 'Nobody Yet Inc', visitCount: 0, firstSeen: '2026-11-21T06:30:00Z', lastSeen: '2026-11-21T06:30:00Z' });
    expect(inKeysetOrder(rows)).toBe(true);
    const at = rows.indexOf(row);
    expect(rows[at - 1].lastSeen > row.lastSeen && row.lastSeen > rows[at + 1].lastSeen).toBe(true);
    expect((await client.get('/v1/companies/co_empty', world.accountKey)).body).toEqual({ data: row });
    expect((await client.get('/v1/stats', world.accountKey)).body.data.totalCompanies).toBe(before + 1);
    // No person of the account names it.
    expect((await client.walk('/v1/people', world.accountKey)).rows.some((p) => p.companyData?.companyId === 'co_empty')).toBe(false);
  });

  it('leaves a company with no people out of every filtered list and count, and out of every scoped key’s view, as if it did not exist', async () => {
    const filteredBefore = new Map<string, number>();
    for (const query of FILTERS) filteredBefore.set(query, (await client.get(`/v1/stats?${query}`, world.accountKey)).body.data.totalCompanies);
    await loadAt(NOW, [EMPTY]);
    for (const query of FILTERS) {
      const { rows } = await client.walk(`/v1/companies?${query}`, world.accountKey);
      expect(rows.map((c) => c.id), query).not.toContain('co_empty');
      expect((await client.get(`/v1/stats?${query}`, world.accountKey)).body.data.totalCompanies, query).toBe(filteredBefore.get(query));
    }
    for (const domain of DOMAINS) {
      const key = world.scopedKeys[domain]!;
      expect((await client.walk('/v1/companies', key)).rows.map((c) => c.id), domain).not.toContain('co_empty');
      expect(await notFoundBody('co_empty', key)).toBe(await notFoundBody('co_never_loaded', key));
      const companies = (await client.walk('/v1/companies', key)).rows.length;
      expect((await client.get('/v1/stats', key)).body.data.totalCompanies, domain).toBe(companies);
    }
  });

  it('falls back to visitCount 0 and its load time when a company’s last people move to another company, and leaves every filtered and scoped view', async () => {
    // co_05's people all move to co_06 (reloaded by the admin surface with another companyId).
    const movers = world.people.filter((p) => p.companyId === 'co_05');
    expect(movers.length).toBeGreaterThan(1);
    world.clock.advance(60);
    await world.api.admin.loadPeople('acc_a', movers.map((p) => ({ ...p, companyId: 'co_06', company: 'Company 6' })));

    // The world loaded its companies at NOW.
    const left = (await client.get('/v1/companies/co_05', world.accountKey)).body.data;
    expect(left).toMatchObject({ visitCount: 0, firstSeen: '2026-11-21T12:00:00Z', lastSeen: '2026-11-21T12:00:00Z' });
    const everyone = (await client.walk('/v1/people', world.accountKey)).rows;
    const joined = (await client.get('/v1/companies/co_06', world.accountKey)).body.data;
    expect({ id: joined.id, visitCount: joined.visitCount, firstSeen: joined.firstSeen, lastSeen: joined.lastSeen }).toEqual(figuresFrom(everyone).get('co_06'));
    for (const query of FILTERS) expect((await client.walk(`/v1/companies?${query}`, world.accountKey)).rows.map((c) => c.id), query).not.toContain('co_05');
    for (const domain of DOMAINS) expect(await notFoundBody('co_05', world.scopedKeys[domain]!)).toBe(await notFoundBody('co_never_loaded', world.scopedKeys[domain]!));
  });

  it('shows a company whose only person was seen on one site through that site’s key and filter, with that site’s or the account’s figures, and to no other site', async () => {
    await loadAt(NOW, [{ id: 'co_beta_only', name: 'Beta Only Ltd' }]);
    await world.api.admin.loadPeople('acc_a', [
      { id: 'per_beta_only', companyId: 'co_beta_only', company: 'Beta Only Ltd', visits: [{ domain: 'beta.example', visitCount: 3, firstSeen: '2026-11-01T08:00:00Z', lastSeen: '2026-11-02T09:00:00Z' }] },
    ]);
    const figures = { visitCount: 3, firstSeen: '2026-11-01T08:00:00Z', lastSeen: '2026-11-02T09:00:00Z' };
    expect((await client.get('/v1/companies/co_beta_only', world.scopedKeys['beta.example']!)).body.data).toMatchObject(figures);
    expect((await client.walk('/v1/companies', world.scopedKeys['beta.example']!)).rows.map((c) => c.id)).toContain('co_beta_only');
    expect((await client.walk('/v1/companies?domain=beta.example', world.accountKey)).rows.find((c) => c.id === 'co_beta_only')).toMatchObject(figures);
    expect((await client.walk('/v1/companies?client_ref=beta', world.accountKey)).rows.map((c) => c.id)).toContain('co_beta_only');
    for (const domain of DOMAINS.filter((d) => d !== 'beta.example')) {
      expect(await notFoundBody('co_beta_only', world.scopedKeys[domain]!)).toBe(await notFoundBody('co_never_loaded', world.scopedKeys[domain]!));
      expect((await client.walk('/v1/companies', world.scopedKeys[domain]!)).rows.map((c) => c.id), domain).not.toContain('co_beta_only');
      expect((await client.walk(`/v1/companies?domain=${domain}`, world.accountKey)).rows.map((c) => c.id), domain).not.toContain('co_beta_only');
    }
  });
});
