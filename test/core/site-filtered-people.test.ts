import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createApi, ManualClock, type Api, type PersonInput } from '../../adapters/node/index.ts';
import { BACKENDS, reopenableDatabases, type Backend, type OpenedDatabase } from '../support/backends.ts';
import { undoMigrationsFrom } from '../support/undo-migrations.ts';

/**
 * An account key's people list under a `domain` or `client_ref` filter is ordered by each
 * person's latest visit anywhere, attributed to their latest visit among the selected sites. It
 * is read from the sites' own index ranges, by a copy of the person's lastSeen on each of their
 * visits, with their hot-lead flag (migration 0012): whatever is loaded and reloaded, the walk must equal the order the
 * spec gives, worked out here from the loaded input alone.
 */

const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** Registered in this order, so a later one has the higher key (the tie-break between sites seen at one instant). */
const SITES = [
  { domain: 'alpha.example', clientRef: 'alpha' },
  { domain: 'shop.alpha.example', clientRef: 'alpha' },
  { domain: 'beta.example', clientRef: 'beta' },
  { domain: 'gamma.example', clientRef: null },
];

/** A person visiting a few sites; some see a selected site last, some another, some two at one instant, some share a lastSeen. */
function person(i: number, shift = 0): PersonInput {
  const at = (k: number) => NOW - ((i * 7 + k * 3) % 11) * HOUR + shift;
  const visits = [{ domain: SITES[i % 4]!.domain, visitCount: 1, firstSeen: iso(at(0) - 48 * HOUR), lastSeen: iso(at(0)) }];
  if (i % 3 !== 2) visits.push({ domain: SITES[(i + 1) % 4]!.domain, visitCount: 2, firstSeen: iso(at(1) - 48 * HOUR), lastSeen: iso(i % 5 === 0 ? at(0) : at(1)) });
  if (i % 4 === 1) visits.push({ domain: SITES[(i + 2) % 4]!.domain, visitCount: 3, firstSeen: iso(at(2) - 48 * HOUR), lastSeen: iso(at(2)) });
  return { id: `per_${String(i).padStart(2, '0')}`, firstName: `P${i}`, isHotLead: i % 2 === 0, visits };
}

/** What the list must be, from the input: `[id, lastSeen, domain]` in list order. */
function expected(people: PersonInput[], selected: string[], hotOnly = false): [string, string, string][] {
  const order = (domain: string) => SITES.findIndex((s) => s.domain === domain);
  return people
    .filter((p) => p.visits.some((v) => selected.includes(String(v.domain))) && (!hotOnly || p.isHotLead))
    .map((p) => {
      const lastSeen = Math.max(...p.visits.map((v) => Date.parse(String(v.lastSeen))));
      const inSites = p.visits.filter((v) => selected.includes(String(v.domain)));
      const latest = inSites.reduce((a, b) => {
        const [ta, tb] = [Date.parse(String(a.lastSeen)), Date.parse(String(b.lastSeen))];
        return tb > ta || (tb === ta && order(String(b.domain)) > order(String(a.domain))) ? b : a;
      });
      return { id: p.id, lastSeen, domain: String(latest.domain) };
    })
    .sort((a, b) => b.lastSeen - a.lastSeen || (a.id < b.id ? 1 : -1))
    .map((p) => [p.id, iso(p.lastSeen).replace('.000Z', 'Z'), p.domain]);
}

/** Every page of `path` (4 a page), as `[id, lastSeen, domain]`. */
async function walk(api: Api, key: string, path: string): Promise<[string, string, string][]> {
  const listed: [string, string, string][] = [];
  for (let cursor: string | undefined, pages = 0; pages === 0 || cursor; pages++) {
    const url = `http://x${path}${path.includes('?') ? '&' : '?'}limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await api.fetch(new Request(url, { headers: { 'x-api-key': key } }));
    const body = (await res.json()) as { data: { id: string; lastSeen: string; domain: string }[]; pagination: { nextCursor?: string } };
    expect(res.status, JSON.stringify(body)).toBe(200);
    listed.push(...body.data.map((p): [string, string, string] => [p.id, p.lastSeen, p.domain]));
    cursor = body.pagination.nextCursor;
  }
  return listed;
}

const FILTERS: [string, string[], boolean?][] = [
  ['/v1/people?domain=alpha.example', ['alpha.example', 'shop.alpha.example']],
  ['/v1/people?client_ref=alpha&hot_leads=true', ['alpha.example', 'shop.alpha.example'], true],
  ['/v1/people?domain=beta.example', ['beta.example']],
  ['/v1/people?domain=gamma.example&client_ref=alpha', []],
];

describe.each(BACKENDS)('an account key’s people under a site filter ($name)', (backend: Backend) => {
  const databases = reopenableDatabases(backend);

  const open = (database: OpenedDatabase['database']) => createApi({ database, clock: new ManualClock(NOW), rateLimits: { accountPerHour: 1_000_000, scopedKeyPerHour: 1_000_000 } });

  /** A fresh database that can be opened again, with the sites and an account key. */
  async function fresh(): Promise<{ api: Api; database: OpenedDatabase['database']; key: string }> {
    const database = await databases.fresh();
    const api = databases.keep(await open(database));
    await api.admin.createAccount({ id: 'acc_a', name: 'A' });
    for (const site of SITES) await api.admin.registerSite('acc_a', site);
    return { api, database, key: (await api.admin.issueAccountKey('acc_a')).key };
  }

  it('lists people by their latest visit anywhere, attributed among the selected sites, through reloads that move it', async () => {
    const { api, key } = await fresh();
    const people = Array.from({ length: 30 }, (_, i) => person(i));
    await api.admin.loadPeople('acc_a', people);
    for (const [path, selected, hot] of FILTERS) expect(await walk(api, key, path), path).toEqual(expected(people, selected, hot));

    // Reloads: some people seen later (on any of their sites), one earlier and no longer a hot lead, one a hot lead now, one moved to other sites.
    const reloaded = [person(3, 5 * HOUR), person(8, 9 * HOUR), { ...person(12, -30 * HOUR), isHotLead: false }, { ...person(13), isHotLead: true }, { ...person(20), visits: person(21).visits }];
    await api.admin.loadPeople('acc_a', reloaded);
    const now = people.map((p) => reloaded.find((r) => r.id === p.id) ?? p);
    for (const [path, selected, hot] of FILTERS) expect(await walk(api, key, path), `${path} after reloads`).toEqual(expected(now, selected, hot));
    expect(expected(now, FILTERS[0]![1]).slice(0, 2).map(([id]) => id)).toEqual(['per_08', 'per_03']);
  });

  it('fills each visit’s copy of its person’s lastSeen when a database loaded before it is migrated, and serves the same pages', async () => {
    const { api, database, key } = await fresh();
    const people = Array.from({ length: 30 }, (_, i) => person(i));
    await api.admin.loadPeople('acc_a', people);
    const before = await Promise.all(FILTERS.map(([path]) => walk(api, key, path)));
    await undoMigrationsFrom(api.db, '0012_person_fields_per_site');
    await databases.close(api);

    const reopened = databases.keep(await open(database));
    const { rows } = await sql<{ n: number }>`select count(*) as n from person_sites ps join people p on p.pk = ps.person_pk where ps.person_last_seen <> p.last_seen`.execute(reopened.db);
    expect(Number(rows[0]!.n)).toBe(0);
    expect(await Promise.all(FILTERS.map(([path]) => walk(reopened, key, path)))).toEqual(before);
    expect(before.map((b) => b.length)).toEqual(FILTERS.map(([, selected, hot]) => expected(people, selected, hot).length));
  });
});
