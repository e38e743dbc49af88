import { Migrator, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminError, createApi, ManualClock, openDatabase, type Api, type CompanyInput, type Database } from '../../adapters/node/index.ts';
import { initial } from '../../core/store/migrations/0001-initial.ts';
import { exportsSchema } from '../../core/store/migrations/0002-exports.ts';
import { generateDemo } from '../../scripts/demo/generate.ts';
import { seedDemo } from '../../scripts/demo/seed.ts';
import { clientFor, runExport } from '../support/client.ts';
import { inProcess, TARGETS, type Client } from '../support/targets.ts';

/**
 * The spec types every Company field (string, integer, boolean) and leaves room for null only on
 * Person. A company with no value for a text field answers `''`, with no employee count `0`:
 * on the list, on get, in a person's `companyData`, and in exports.
 */

const ANCHOR = Date.UTC(2026, 10, 20, 12);
const UNLIMITED = { accountPerHour: 1e9, scopedKeyPerHour: 1e9 };

/** The Company table of the spec: each field and its JSON type. */
const COMPANY_FIELDS: Record<string, 'string' | 'integer' | 'boolean'> = {
  id: 'string',
  name: 'string',
  domain: 'string',
  standardizedIndustry: 'string',
  location: 'string',
  region: 'string',
  linkedinUrl: 'string',
  employeeCount: 'integer',
  visitCount: 'integer',
  firstSeen: 'string',
  lastSeen: 'string',
  isHotCompany: 'boolean',
  trafficType: 'string',
  adPlatform: 'string',
};

/** The `companyData` fields the spec lists on Person, with their types. */
const COMPANY_DATA_FIELDS: Record<string, 'string' | 'integer'> = {
  companyId: 'string',
  name: 'string',
  domain: 'string',
  standardizedIndustry: 'string',
  location: 'string',
  employeeCount: 'integer',
};

/** Fails unless `value` has exactly `fields`, each of its JSON type (integers whole and ≥ 0). */
function expectTyped(value: Record<string, unknown>, fields: Record<string, string>, what: string): void {
  expect(Object.keys(value).sort(), what).toEqual(Object.keys(fields).sort());
  for (const [field, type] of Object.entries(fields)) {
    const v = value[field];
    const ok = type === 'integer' ? Number.isInteger(v) && (v as number) >= 0 : typeof v === type;
    expect(ok, `${what}.${field} is ${JSON.stringify(v)}, not ${type}`).toBe(true);
  }
}

describe.each(TARGETS)('Company fields over the demo dataset ($name)', (target) => {
  let api: Api;
  let client: Client;
  let close: () => Promise<void>;
  let demoKey: string;
  let fullKey: string;
  const fullCompanies = generateDemo({ seed: 42, people: 2000, anchor: ANCHOR }).companies;

  beforeAll(async () => {
    api = await createApi({ database: ':memory:', clock: new ManualClock(ANCHOR), rateLimits: UNLIMITED });
    await api.admin.createAccount({ id: 'acc_demo', name: 'Demo' });
    await seedDemo(api.admin, 'acc_demo', { seed: 5, people: 300, anchor: ANCHOR });
    demoKey = (await api.admin.issueAccountKey('acc_demo')).key;
    // The companies of the default demo (`npm start`: seed 42, 2,000 people), loaded on their own.
    await api.admin.createAccount({ id: 'acc_full', name: 'Default demo companies' });
    await api.admin.loadCompanies('acc_full', fullCompanies);
    fullKey = (await api.admin.issueAccountKey('acc_full')).key;
    const started = await target.start(api);
    client = clientFor(started.call);
    close = started.close;
  }, 60_000);
  afterAll(() => close());

  it('gives every company on every page, and on get, each spec field with its type', async () => {
    for (const key of [demoKey, fullKey]) {
      const { rows } = await client.walk('/v1/companies', key);
      expect(rows.length).toBeGreaterThanOrEqual(20);
      for (const company of rows) {
        expectTyped(company, COMPANY_FIELDS, `company ${company.id}`);
        const one = await client.get(`/v1/companies/${company.id}`, key);
        expect(one.body.data, company.id).toEqual(company);
      }
    }
  });

  it('answers the demo companies without an ad platform with an empty string, not null', async () => {
    const { rows } = await client.walk('/v1/companies', fullKey);
    expect(rows).toHaveLength(fullCompanies.length);
    const withoutPlatform = fullCompanies.filter((c) => c.adPlatform == null).map((c) => c.id).sort();
    expect(withoutPlatform.length).toBeGreaterThan(100);
    expect(rows.filter((c) => c.adPlatform === '').map((c) => c.id).sort()).toEqual(withoutPlatform);
  });

  it("gives every person's companyData on every page each spec field with its type", async () => {
    const { rows } = await client.walk('/v1/people', demoKey);
    expect(rows).toHaveLength(300);
    const withCompany = rows.filter((p) => p.companyData !== null);
    expect(withCompany.length).toBeGreaterThan(100);
    for (const person of withCompany) expectTyped(person.companyData, COMPANY_DATA_FIELDS, `person ${person.id} companyData`);
  });
});

describe.each(TARGETS)('a company loaded with only an id and a name ($name)', (target) => {
  let api: Api;
  let client: Client;
  let close: () => Promise<void>;
  let key: string;
  const EMPTY = { domain: '', standardizedIndustry: '', location: '', region: '', linkedinUrl: '', employeeCount: 0, trafficType: '', adPlatform: '' };

  beforeAll(async () => {
    api = await createApi({ database: ':memory:', clock: new ManualClock(ANCHOR) });
    await api.admin.createAccount({ id: 'acc', name: 'Partner' });
    await api.admin.registerSite('acc', { domain: 'site.example', clientRef: 'client' });
    const nulls: CompanyInput = { id: 'co_nulls', name: 'All Null', ...Object.fromEntries(Object.keys(EMPTY).map((k) => [k, null])) };
    await api.admin.loadCompanies('acc', [{ id: 'co_bare', name: 'Bare Co' }, nulls]);
    const visits = [{ domain: 'site.example', visitCount: 1, firstSeen: ANCHOR - 86_400_000, lastSeen: ANCHOR }];
    await api.admin.loadPeople('acc', [
      { id: 'per_bare', firstName: 'Bea', companyId: 'co_bare', visits },
      { id: 'per_nulls', firstName: 'Nul', companyId: 'co_nulls', visits },
    ]);
    key = (await api.admin.issueAccountKey('acc')).key;
    const started = await target.start(api);
    client = clientFor(started.call);
    close = started.close;
  });
  afterAll(() => close());

  it("answers '' and 0 for its missing fields on the list and on get, whether they were left out or null", async () => {
    const list = await client.get('/v1/companies', key);
    for (const [id, name] of [['co_bare', 'Bare Co'], ['co_nulls', 'All Null']] as const) {
      const row = list.body.data.find((c: { id: string }) => c.id === id);
      expect(row).toMatchObject({ id, name, ...EMPTY, isHotCompany: false });
      expect((await client.get(`/v1/companies/${id}`, key)).body.data).toEqual(row);
    }
  });

  it("answers '' and 0 in a person's companyData", async () => {
    for (const [person, companyId, name] of [['per_bare', 'co_bare', 'Bare Co'], ['per_nulls', 'co_nulls', 'All Null']] as const) {
      const { body } = await client.get(`/v1/people/${person}`, key);
      expect(body.data.companyData).toEqual({ companyId, name, domain: '', standardizedIndustry: '', location: '', employeeCount: 0 });
    }
  });

  it('exports its text cells empty and its employee count as 0', async () => {
    const { csv } = await runExport(client, key, undefined, { idle: () => api.exportsIdle() });
    const row = csv.rows.find((r) => r.id === 'per_bare')!;
    expect(row).toMatchObject({ companyId: 'co_bare', companyName: 'Bare Co', companyDomain: '', companyIndustry: '', companyLocation: '', companyEmployeeCount: '0' });
  });
});

describe('loading companies', () => {
  let api: Api;
  beforeAll(async () => {
    api = await createApi({ database: ':memory:', clock: new ManualClock(ANCHOR) });
    await api.admin.createAccount({ id: 'acc', name: 'Partner' });
  });

  it('refuses a field of the wrong type, naming the company and the field, and loads none of the batch', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ domain: 5 }, /^companies\[1\]\.domain must be a string or null/],
      [{ adPlatform: true }, /^companies\[1\]\.adPlatform must be a string or null/],
      [{ linkedinUrl: {} }, /^companies\[1\]\.linkedinUrl must be a string or null/],
      [{ employeeCount: -1 }, /^companies\[1\]\.employeeCount must be a whole number ≥ 0/],
      [{ employeeCount: 2.5 }, /^companies\[1\]\.employeeCount must be a whole number ≥ 0/],
      [{ employeeCount: '40' }, /^companies\[1\]\.employeeCount must be a whole number ≥ 0/],
      [{ isHotCompany: 'yes' }, /^companies\[1\]\.isHotCompany must be true or false/],
    ];
    for (const [fields, message] of cases) {
      const load = api.admin.loadCompanies('acc', [{ id: 'co_ok', name: 'Fine' }, { id: 'co_bad', name: 'Bad', ...fields } as CompanyInput]);
      await expect(load, JSON.stringify(fields)).rejects.toThrow(AdminError);
      await expect(load, JSON.stringify(fields)).rejects.toThrow(message);
    }
    const key = (await api.admin.issueAccountKey('acc')).key;
    const reply = await clientFor((await inProcess.start(api)).call).get('/v1/companies', key);
    expect(reply.body.data).toEqual([]);
  });
});

describe('a database whose companies were loaded before this rule', () => {
  let db: Kysely<Database>;
  afterAll(() => db?.destroy());

  it("answers '' and 0 once the API has opened it, on get, list and companyData", async () => {
    db = openDatabase(':memory:');
    // The schema as it was, and a company as the earlier loader stored it: nulls for what was not given.
    const old = new Migrator({ db, provider: { getMigrations: async () => ({ '0001_initial': initial, '0002_exports': exportsSchema }) } });
    expect((await old.migrateToLatest()).error).toBeUndefined();
    const seconds = Math.floor(ANCHOR / 1000);
    await db.insertInto('accounts').values({ id: 'acc', name: 'Old', created_at: seconds }).execute();
    await db
      .insertInto('companies')
      .values({ account_id: 'acc', id: 'co_old', name: 'Old Co', domain: 'old.example', standardized_industry: null, location: null, region: null, linkedin_url: null, employee_count: null, is_hot_company: 0, traffic_type: null, ad_platform: null, visit_count: 0, first_seen: seconds, last_seen: seconds, loaded_at: seconds })
      .execute();

    const api = await createApi({ database: db, clock: new ManualClock(ANCHOR) });
    await api.admin.registerSite('acc', { domain: 'site.example' });
    await api.admin.loadPeople('acc', [{ id: 'per_1', companyId: 'co_old', visits: [{ domain: 'site.example', visitCount: 2, firstSeen: ANCHOR - 1000, lastSeen: ANCHOR }] }]);
    const client = clientFor((await inProcess.start(api)).call);
    const key = (await api.admin.issueAccountKey('acc')).key;
    const company = (await client.get('/v1/companies/co_old', key)).body.data;
    expect(company).toMatchObject({ domain: 'old.example', standardizedIndustry: '', location: '', region: '', linkedinUrl: '', employeeCount: 0, trafficType: '', adPlatform: '' });
    expectTyped(company, COMPANY_FIELDS, 'co_old');
    expect((await client.get('/v1/companies', key)).body.data).toEqual([company]);
    expect((await client.get('/v1/people/per_1', key)).body.data.companyData).toEqual({ companyId: 'co_old', name: 'Old Co', domain: 'old.example', standardizedIndustry: '', location: '', employeeCount: 0 });
    await api.close();
  });
});
