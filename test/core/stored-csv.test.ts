import { csvFormatRow } from 'd3-dsv';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createApi, ManualClock, type Api, type CompanyInput, type PersonInput } from '../../adapters/node/index.ts';
import { BACKENDS, reopenableDatabases, type Backend, type OpenedDatabase } from '../support/backends.ts';
import { clientFor, runExport } from '../support/client.ts';
import { EXPORT_COLUMNS } from '../support/csv.ts';
import { undoMigrationsFrom } from '../support/undo-migrations.ts';

/**
 * An export's lines are joined from cells formatted as the data is loaded (people's `csv_head`
 * and `csv_tail`, companies' `csv_cells`, core/exports/columns.ts). Each line must be, byte for
 * byte, the person's 31 cells formatted whole, and a database loaded before the columns existed
 * must export the same file once migrated.
 */

const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** Text a CSV writer must quote, a spreadsheet would run as a formula, or JSON must escape. */
const TRICKY = ['=SUM(A1)', '+1 555', '-minus', '@handle', '\tTab first', '\rCR first', 'comma, inside', 'He said "hi"', 'line\nbreak\r\nend', 'Zoë 東京 😀', "'quoted already", ''];
const tricky = (i: number) => TRICKY[i % TRICKY.length]!;

const SITES = [
  { domain: 'alpha.example', clientRef: '=cmd|"/c calc"!A1' },
  { domain: 'beta.example', clientRef: null },
  { domain: 'gamma.example', clientRef: 'plain, with comma' },
];

function companies(): CompanyInput[] {
  return [0, 1, 2].map((i) => ({ id: `co_${i}`, name: ['comma, inside', 'He said "hi"', '=1+2'][i]!, domain: i === 2 ? null : `co${i}.example`, location: tricky(i), standardizedIndustry: tricky(i + 3), employeeCount: i === 1 ? null : 10 * i }));
}

function person(i: number): PersonInput {
  const last = NOW - (i % 7) * 3_600_000;
  const visits = [{ domain: SITES[i % 3]!.domain, visitCount: 1 + (i % 4), firstSeen: iso(last - 7 * DAY), lastSeen: iso(last) }];
  return {
    id: `per_${String(i).padStart(3, '0')}`,
    email: i % 4 === 0 ? null : `${i}@mail.example`,
    firstName: tricky(i),
    lastName: tricky(i + 5),
    title: i % 3 === 0 ? null : tricky(i + 2),
    company: tricky(i + 7),
    location: tricky(i + 1),
    companyId: i % 5 === 4 ? null : `co_${i % 3}`,
    isHotLead: i % 2 === 0,
    classifiedSeniority: tricky(i + 4),
    adPlatform: i % 2 ? tricky(i + 9) : null,
    campaign: i % 3 === 1 ? null : tricky(i + 3),
    crmStatus: (['not_in_crm', 'in_crm', 'customer'] as const)[i % 3],
    visits,
  };
}

/** A text cell as the spec's exports write it: empty for null, a formula's first character neutralised by a quote. */
const textCell = (value: unknown): string => (value === null || value === undefined ? '' : /^[=+\-@\t\r]/.test(String(value)) ? `'${value}` : String(value));

/** The file an export of everyone must be: each listed person's 31 cells formatted whole by d3-dsv, in list order. */
function expectedFile(listed: any[], inputs: Map<string, PersonInput>): string {
  const numeric = new Set(['visitCount', 'firstSeen', 'lastSeen', 'isHotLead', 'companyEmployeeCount']);
  const lines = listed.map((p) => {
    const input = inputs.get(p.id)!;
    const company = p.companyData ?? {};
    const values: Record<string, unknown> = {
      ...p,
      companyId: company.companyId, companyName: company.name, companyDomain: company.domain, companyIndustry: company.standardizedIndustry,
      companyLocation: company.location, companyEmployeeCount: company.employeeCount ?? '',
      campaign: input.campaign ?? null, crmStatus: input.crmStatus ?? 'not_in_crm',
    };
    return `${csvFormatRow(EXPORT_COLUMNS.map((c) => (numeric.has(c) ? String(values[c]) : textCell(values[c]))))}\r\n`;
  });
  return `${csvFormatRow([...EXPORT_COLUMNS])}\r\n${lines.join('')}`;
}

async function openApi(database: OpenedDatabase['database']): Promise<Api> {
  return createApi({ database, clock: new ManualClock(NOW), secret: 'stored-csv-secret', rateLimits: { accountPerHour: 1_000_000, scopedKeyPerHour: 1_000_000 }, onError: () => undefined });
}

const clientOf = (api: Api) => clientFor((path, init) => api.fetch(new Request(`http://test.local${path}`, init)));

describe.each(BACKENDS)('stored CSV cells of people and companies ($name)', (backend: Backend) => {
  const databases = reopenableDatabases(backend);

  async function loaded(): Promise<{ api: Api; database: OpenedDatabase['database']; key: string; inputs: Map<string, PersonInput> }> {
    const database = await databases.fresh();
    const api = databases.keep(await openApi(database));
    await api.admin.createAccount({ id: 'acc_a', name: 'A' });
    for (const site of SITES) await api.admin.registerSite('acc_a', site);
    await api.admin.loadCompanies('acc_a', companies());
    const people = Array.from({ length: 36 }, (_, i) => person(i));
    await api.admin.loadPeople('acc_a', people);
    return { api, database, key: (await api.admin.issueAccountKey('acc_a')).key, inputs: new Map(people.map((p) => [p.id, p])) };
  }

  it('exports each person as their 31 cells formatted whole, through reloads of people and companies', async () => {
    const { api, key, inputs } = await loaded();
    const client = clientOf(api);
    const check = async () => {
      const listed = await client.walk('/v1/people', key);
      expect((await runExport(client, key)).text).toBe(expectedFile(listed.rows, inputs));
    };
    await check();
    // A company renamed and re-counted, one left without a domain: its people's lines follow.
    await api.admin.loadCompanies('acc_a', [{ id: 'co_0', name: '-renamed, "zero"', domain: null, employeeCount: 5 }]);
    // People reloaded: new values, another company, none, a null where text was.
    const reloaded = [{ ...person(1), firstName: '@new', companyId: 'co_2' }, { ...person(2), companyId: null, campaign: '=HYPERLINK("x")' }, { ...person(3), lastName: null }];
    await api.admin.loadPeople('acc_a', reloaded);
    for (const p of reloaded) inputs.set(p.id, p);
    await check();
  });

  it('fills the cells of a database loaded before they were stored, and exports the same file', async () => {
    const { api, database, key } = await loaded();
    // More people than one step of the migration's formatting writes (500).
    await api.admin.loadPeople('acc_a', Array.from({ length: 1_100 }, (_, i) => person(100 + i)));
    const before = (await runExport(clientOf(api), key)).text;
    expect(before.split('\r\n').length).toBeGreaterThan(1_100);
    await undoMigrationsFrom(api.db, '0013_stored_csv');
    await databases.close(api);

    const reopened = databases.keep(await openApi(database));
    const empty = await reopened.db.selectFrom('people').select(sql<number>`count(*)`.as('n')).where('csv_head', 'is', null).executeTakeFirstOrThrow();
    expect(Number(empty.n)).toBe(0);
    expect((await runExport(clientOf(reopened), key)).text).toBe(before);
  });

  it('refuses a person text field that is not a string, naming it and quoting at most a short prefix', async () => {
    const { api } = await loaded();
    await expect(api.admin.loadPeople('acc_a', [{ ...person(40), title: 42 as unknown as string }])).rejects.toThrow(/^people\[0\]\.title must be a string or null, not 42$/);
    // A huge value comes back as its first 100 characters of JSON.
    const huge = { x: 'y'.repeat(100_000) } as unknown as string;
    await expect(api.admin.loadPeople('acc_a', [{ ...person(40), campaign: huge }])).rejects.toThrow(/^people\[0\]\.campaign must be a string or null, not \{"x":"y{94}…$/);
  });
});
