import { beforeAll, describe, expect, it } from 'vitest';
import { createApi, ManualClock, type Api, type PersonInput } from '../../adapters/node/index.ts';
import { DEMO_SITES, generateDemo } from '../../scripts/demo/generate.ts';
import { seedDemo } from '../../scripts/demo/seed.ts';
import { clientFor, runExport } from '../support/client.ts';
import { inProcess } from '../support/targets.ts';

/**
 * Every export filter, run over the seeded demo account, must select exactly the people its
 * name says, and a non-trivial part of them: not none, not all. The expected sets come from the
 * generator's own data, not from SQL.
 */
const ANCHOR = Date.UTC(2026, 10, 20, 12);
const OPTIONS = { seed: 11, people: 400, anchor: ANCHOR };
const DAY = 86_400_000;

describe('export filters over the demo account', () => {
  let api: Api;
  let client: ReturnType<typeof clientFor>;
  let key: string;
  let people: PersonInput[];
  const pagesSeen = new Map<string, Set<string>>();
  const industryOf = new Map<string, string | null | undefined>();

  /** Runs an export to the end and returns its CSV rows. */
  async function exportRows(filters: Record<string, unknown>, withKey = key): Promise<Record<string, string>[]> {
    const { job, csv } = await runExport(client, withKey, filters, { idle: () => api.exportsIdle() });
    expect(csv.rows, JSON.stringify(filters)).toHaveLength(job.rowCount);
    return csv.rows;
  }

  beforeAll(async () => {
    api = await createApi({ database: ':memory:', clock: new ManualClock(ANCHOR) });
    client = clientFor((await inProcess.start(api)).call);
    await api.admin.createAccount({ id: 'acc_demo', name: 'Demo' });
    await seedDemo(api.admin, 'acc_demo', OPTIONS);
    key = (await api.admin.issueAccountKey('acc_demo')).key;
    const demo = generateDemo(OPTIONS);
    people = demo.people;
    for (const c of demo.companies) industryOf.set(c.id, c.standardizedIndustry);
    for (const batch of demo.events()) {
      for (const e of batch) {
        const set = pagesSeen.get(e.personId) ?? new Set<string>();
        set.add(new URL(e.url).pathname.replace(/\/+$/, '') || '/');
        pagesSeen.set(e.personId, set);
      }
    }
  }, 60_000);

  const lastSeen = (p: PersonInput) => Math.max(...p.visits.map((v) => Date.parse(String(v.lastSeen))));
  const firstSeen = (p: PersonInput) => Math.min(...p.visits.map((v) => Date.parse(String(v.firstSeen))));
  const clientOf = (domain: string) => DEMO_SITES.find((s) => s.domain === domain)?.clientRef ?? domain;
  const has = (v: string | null | undefined) => v !== null && v !== undefined && v !== '';
  const lower = (v: string | null | undefined) => (v ?? '').toLowerCase();

  const cases: [string, Record<string, unknown>, (p: PersonInput) => boolean][] = [
    ['timeframe over lastSeen', { timeframe: '7d' }, (p) => lastSeen(p) >= ANCHOR - 7 * DAY],
    ['timeframe of 24 hours', { timeframe: '24h' }, (p) => lastSeen(p) >= ANCHOR - DAY],
    ['timeframe over firstSeen', { timeframe: '30d', dateField: 'firstSeen' }, (p) => firstSeen(p) >= ANCHOR - 30 * DAY],
    ['hot leads', { isHotLead: true }, (p) => !!p.isHotLead],
    ['cold leads', { isHotLead: false }, (p) => !p.isHotLead],
    ['industries', { industries: ['software', 'Healthcare'] }, (p) => ['software', 'healthcare'].includes(lower(industryOf.get(p.companyId ?? '')))],
    ['regions', { regions: 'EMEA' }, (p) => p.region === 'EMEA'],
    ['seniority', { seniority: ['VP', 'Director'] }, (p) => ['VP', 'Director'].includes(p.classifiedSeniority ?? '')],
    ['job functions', { jobFunctions: ['Marketing'] }, (p) => p.classifiedJobFunction === 'Marketing'],
    ['domains with subdomains', { domains: ['acme-example.com'] }, (p) => p.visits.some((v) => v.domain === 'acme-example.com' || v.domain === 'shop.acme-example.com')],
    ['pages', { pages: ['/pricing'] }, (p) => pagesSeen.get(p.id)?.has('/pricing') ?? false],
    ['campaigns', { campaigns: ['webinar-q3', 'retargeting'] }, (p) => ['webinar-q3', 'retargeting'].includes(p.campaign ?? '')],
    ['traffic types', { trafficTypes: ['paid'] }, (p) => p.trafficType === 'paid'],
    ['ad platforms', { adPlatforms: ['linkedin'] }, (p) => p.adPlatform === 'linkedin'],
    ['visit count minimum', { visitCountMin: 40 }, (p) => p.visits.reduce((n, v) => n + v.visitCount, 0) >= 40],
    ['has business email', { hasBusinessEmail: true }, (p) => has(p.businessEmail)],
    ['has no business email', { hasBusinessEmail: false }, (p) => !has(p.businessEmail)],
    ['has LinkedIn', { hasLinkedIn: true }, (p) => has(p.linkedinUrl)],
    ['has phone', { hasPhone: true }, (p) => has(p.phone)],
    ['has no phone', { hasPhone: false }, (p) => !has(p.phone)],
    ['multi-client only', { multiClientOnly: true }, (p) => new Set(p.visits.map((v) => clientOf(v.domain))).size > 1],
    ['in CRM (customers included)', { crmStatus: 'in_crm' }, (p) => p.crmStatus === 'in_crm' || p.crmStatus === 'customer'],
    ['customers', { crmStatus: 'customers' }, (p) => p.crmStatus === 'customer'],
    ['not in CRM', { crmStatus: 'not_in_crm' }, (p) => (p.crmStatus ?? 'not_in_crm') === 'not_in_crm'],
  ];

  it.each(cases)('%s selects exactly the matching people, some but not all', async (_name, filters, matches) => {
    const rows = await exportRows(filters);
    const expected = people.filter(matches).map((p) => p.id).sort();
    expect(rows.map((r) => r.id).sort()).toEqual(expected);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(people.length);
  });

  it('search matches name, company and email, case-insensitively', async () => {
    const term = people[5]!.lastName!.slice(0, 4).toUpperCase();
    const rows = await exportRows({ search: term });
    const t = term.toLowerCase();
    const expected = people.filter((p) => [`${p.firstName ?? ''} ${p.lastName ?? ''}`, p.company, p.email, p.businessEmail, p.personalEmail].some((f) => lower(f).includes(t)));
    expect(rows.map((r) => r.id).sort()).toEqual(expected.map((p) => p.id).sort());
    expect(rows.length).toBeGreaterThan(0);
  });

  it('timeframe all selects everyone, the same file as no filter at all', async () => {
    const everyone = (await exportRows({})).map((r) => r.id);
    expect([...everyone].sort()).toEqual(people.map((p) => p.id).sort());
    expect((await exportRows({ timeframe: 'all' })).map((r) => r.id)).toEqual(everyone);
    expect((await exportRows({ timeframe: 'all', dateField: 'firstSeen' })).map((r) => r.id)).toEqual(everyone);
  });

  it('search takes % and _ literally, not as wildcards', async () => {
    const fields = (p: PersonInput) => [`${p.firstName ?? ''} ${p.lastName ?? ''}`, p.company, p.email, p.businessEmail, p.personalEmail];
    /** Who a search would match if % and _ were SQL LIKE wildcards. */
    const asWildcards = (term: string) => {
      const re = new RegExp(term.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replaceAll('%', '.*').replaceAll('_', '.'));
      return people.filter((p) => fields(p).some((f) => re.test(lower(f))));
    };
    const name = lower(people.find((p) => (p.lastName ?? '').length >= 4)!.lastName);
    for (const term of ['%', '_', `${name[0]}_${name.slice(2, 4)}`, `${name.slice(0, 2)}%${name.slice(-1)}`]) {
      expect(asWildcards(term).length, `${term} as a wildcard pattern`).toBeGreaterThan(0);
      const expected = people.filter((p) => fields(p).some((f) => lower(f).includes(term.toLowerCase())));
      expect((await exportRows({ search: term })).map((r) => r.id).sort(), term).toEqual(expected.map((p) => p.id).sort());
    }

    // And where the characters are in the data, they match themselves only.
    await api.admin.createAccount({ id: 'acc_literal', name: 'Literal' });
    await api.admin.registerSite('acc_literal', { domain: 'literal.example' });
    const visits = [{ domain: 'literal.example', visitCount: 1, firstSeen: '2026-11-19T00:00:00Z', lastSeen: '2026-11-20T00:00:00Z' }];
    await api.admin.loadPeople('acc_literal', [
      { id: 'lit_percent', company: '100% Organic', visits },
      { id: 'lit_digits', company: '1000 Organic', visits },
      { id: 'lit_underscore', email: 'a_b@literal.example', visits },
      { id: 'lit_letter', email: 'axb@literal.example', visits },
    ]);
    const literalKey = (await api.admin.issueAccountKey('acc_literal')).key;
    expect((await exportRows({ search: '0%' }, literalKey)).map((r) => r.id)).toEqual(['lit_percent']);
    expect((await exportRows({ search: 'a_b' }, literalKey)).map((r) => r.id)).toEqual(['lit_underscore']);
  });

  it('combines filters with AND', async () => {
    const rows = await exportRows({ isHotLead: true, regions: ['EMEA', 'APAC'], hasPhone: true });
    const expected = people.filter((p) => p.isHotLead && ['EMEA', 'APAC'].includes(p.region ?? '') && has(p.phone));
    expect(rows.map((r) => r.id).sort()).toEqual(expected.map((p) => p.id).sort());
  });

  it.each([
    ['lastSeen', 'desc', (r: Record<string, string>) => r.lastSeen!],
    ['firstSeen', 'asc', (r: Record<string, string>) => r.firstSeen!],
    ['visitCount', 'desc', (r: Record<string, string>) => Number(r.visitCount)],
    ['email', 'asc', (r: Record<string, string>) => r.email!.toLowerCase()],
  ] as const)('sortBy %s %s orders the file, ties broken by id', async (sortBy, sortOrder, value) => {
    const rows = await exportRows({ sortBy, sortOrder, hasBusinessEmail: true });
    const sign = sortOrder === 'asc' ? 1 : -1;
    for (let i = 1; i < rows.length; i++) {
      const [a, b] = [value(rows[i - 1]!), value(rows[i]!)];
      const ordered = a === b ? rows[i - 1]!.id!.localeCompare(rows[i]!.id!) * sign <= 0 : (a < b ? -1 : 1) * sign < 0;
      expect(ordered, `${sortBy} ${sortOrder} at row ${i}`).toBe(true);
    }
  });

  it('carries the campaign and CRM status columns in the file', async () => {
    const rows = await exportRows({ campaigns: ['spring-launch'] });
    expect(rows.every((r) => r.campaign === 'spring-launch')).toBe(true);
    expect(new Set(rows.map((r) => r.crmStatus)).size).toBeGreaterThan(1);
  });
});
