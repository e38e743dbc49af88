import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createApi, ManualClock, type Api, type Database as Schema, type PersonInput } from '../../adapters/node/index.ts';

/**
 * An account key's people page on SQLite, with names in ASCII, in Latin-1 and beyond it. Read
 * through our adapter's driver or through Kysely's own SQLite dialect, every page must be each
 * person's own answer, byte for byte.
 */

const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);

/** Names in ASCII, in Latin-1 (C1 controls too), beyond it (astral too), and a mix on one page. */
const NAMES = ['Ada', 'São Paulo', 'Zoë Ångström', 'c1 \u0085\u009f', 'Łódź', '東京', 'emoji 😀👍🏽', 'ÿ\u00a0nbsp', 'tab\tquote"', 'sep\u2028'];

function person(i: number): PersonInput {
  const at = new Date(NOW - i * 60_000).toISOString();
  return {
    id: `per_${String(i).padStart(3, '0')}`,
    email: `${i}@mail.example`,
    firstName: NAMES[i % NAMES.length]!,
    lastName: NAMES[(i * 3 + 1) % NAMES.length]!,
    location: i % 4 === 0 ? 'São Paulo, Brazil' : 'Berlin',
    visits: [{ domain: 'alpha.example', visitCount: 1 + (i % 3), firstSeen: at, lastSeen: at }],
  };
}

/** The raw JSON of `GET /v1/people/{id}` (`{"data":…}` unwrapped). */
async function ownAnswer(api: Api, key: string, id: string): Promise<string> {
  const res = await api.fetch(new Request(`http://test.local/v1/people/${id}`, { headers: { 'x-api-key': key } }));
  expect(res.status).toBe(200);
  return (await res.text()).slice('{"data":'.length, -1);
}

const opened: Api[] = [];
afterEach(async () => {
  for (const api of opened.splice(0)) await api.close();
});

/** The API over a fresh database, with account acc_a, its site and an account key. */
async function openWithAccount(database: () => string | Kysely<Schema>): Promise<{ api: Api; key: string }> {
  const api = await createApi({ database: database(), clock: new ManualClock(NOW) });
  opened.push(api);
  await api.admin.createAccount({ id: 'acc_a', name: 'A' });
  await api.admin.registerSite('acc_a', { domain: 'alpha.example' });
  return { api, key: (await api.admin.issueAccountKey('acc_a')).key };
}

const databases = {
  "our adapter's driver": () => ':memory:',
  "Kysely's own SQLite dialect": () => new Kysely<Schema>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) }),
};

describe.each(Object.entries(databases))('people pages through %s', (_, database) => {
  it('are each person’s own answer joined, byte for byte, for names in ASCII, Latin-1 and beyond, on every page', async () => {
    const { api, key } = await openWithAccount(database);
    await api.admin.loadPeople('acc_a', Array.from({ length: 23 }, (_, i) => person(i)));
    let cursor: string | undefined;
    let pages = 0;
    const seen: string[] = [];
    do {
      const res = await api.fetch(new Request(`http://test.local/v1/people?limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { headers: { 'x-api-key': key } }));
      const text = await res.text();
      const body = JSON.parse(text) as { data: { id: string }[]; pagination: { count: number; nextCursor?: string } };
      const own = await Promise.all(body.data.map((p) => ownAnswer(api, key, p.id)));
      expect(text).toBe(`{"data":[${own.join(',')}],"pagination":${JSON.stringify(body.pagination)}}`);
      expect(body.pagination.count).toBe(body.data.length);
      seen.push(...body.data.map((p) => p.id));
      cursor = body.pagination.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(5);
    expect(seen).toEqual(Array.from({ length: 23 }, (_, i) => person(i).id));
  });

  it('answers an empty account with an empty page', async () => {
    const { api, key } = await openWithAccount(database);
    const res = await api.fetch(new Request('http://test.local/v1/people?limit=5', { headers: { 'x-api-key': key } }));
    expect(await res.text()).toBe('{"data":[],"pagination":{"limit":5,"count":0}}');
  });
});
