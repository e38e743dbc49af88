import { describe, expect, it } from 'vitest';
import { createApi, ManualClock, type Api, type EventInput, type PersonInput } from '../../adapters/node/index.ts';
import { DemoSimulator } from '../../scripts/demo/simulate.ts';
import { seedDemo } from '../../scripts/demo/seed.ts';
import { BACKENDS, reopenableDatabases } from '../support/backends.ts';
import { undoMigrationsFrom } from '../support/undo-migrations.ts';
import { expectStatsExact, type StatsView } from '../support/stats-oracle.ts';

/**
 * The event counters behind `GET /v1/stats` agree with a direct count however events arrive:
 * the admin surface (which `visitor-intelligence load` and the demo seeder call), admin over
 * HTTP, the webhook demo's simulation, a reset to a baseline (a save copies the counters with
 * the events), and a database whose events were loaded before the counters existed (migration
 * 0008) or before their blocks of 16 days (0018).
 */

const NOW_S = Date.UTC(2026, 10, 21, 12, 0, 0) / 1000;
const HOUR = 3_600;
const DAY = 86_400;
const ACCOUNT = 'acc_m';
const TOKEN = 'stats-admin-token-0123456789';
const UNLIMITED = { accountPerHour: 1e9, scopedKeyPerHour: 1e9 };
const SITES = [
  { domain: 'm.example', clientRef: 'm' },
  { domain: 'shop.m.example', clientRef: 'm' },
  { domain: 'other.example', clientRef: 'o' },
];
const iso = (s: number) => new Date(s * 1000).toISOString();

/** An account of three sites (a domain, its subdomain, another client), 24 people and their keys. */
async function setUp(api: Api): Promise<{ accountKey: string; scopedKey: string; people: PersonInput[] }> {
  await api.admin.createAccount({ id: ACCOUNT, name: 'M' });
  for (const site of SITES) await api.admin.registerSite(ACCOUNT, site);
  const people: PersonInput[] = Array.from({ length: 24 }, (_, i) => ({
    id: `per_${i}`,
    visits: SITES.filter((_, k) => k === i % 3 || (i % 4 === 0 && k === (i + 1) % 3)).map((s) => ({ domain: s.domain, visitCount: 1, firstSeen: iso(NOW_S - 400 * DAY), lastSeen: iso(NOW_S - i * HOUR) })),
  }));
  await api.admin.loadPeople(ACCOUNT, people);
  return { accountKey: (await api.admin.issueAccountKey(ACCOUNT)).key, scopedKey: (await api.admin.issueScopedKey(ACCOUNT, 'm.example')).key, people };
}

/** `count` events of the people, at times around hour and day edges over 400 days, ids `prefix_…`. */
function eventsOf(people: PersonInput[], prefix: string, count: number, shift = 0): EventInput[] {
  return Array.from({ length: count }, (_, i) => {
    const person = people[i % people.length]!;
    const domain = String(person.visits[i % person.visits.length]!.domain);
    const ago = (i * 7_919 * 37) % (400 * DAY) + (i % 3) - 1;
    return { eventId: `${prefix}_${i}`, personId: String(person.id), sessionId: 's', eventType: 'page_view', timestamp: (NOW_S - ago + shift) * 1000, url: `https://${domain}/`, domain };
  });
}

/** Stats through the account key, a filter, and the scoped key, each at a few periods, against a direct count; the account's figures. */
async function expectExact(api: Api, keys: { accountKey: string; scopedKey: string }, nowSeconds = NOW_S) {
  const checks: [string, StatsView][] = [
    [keys.accountKey, {}],
    [keys.accountKey, { clientRef: 'm' }],
    [keys.accountKey, { domain: 'other.example' }],
    [keys.scopedKey, { scopeDomain: 'm.example' }],
  ];
  const first = [];
  for (const [key, view] of checks) for (const days of [1, 30, 365]) first.push(await expectStatsExact(api, key, ACCOUNT, view, days, nowSeconds));
  return first;
}

describe.each(BACKENDS)('stats counters, however events arrive ($name)', (backend) => {
  const databases = reopenableDatabases(backend);

  /** A database loaded with old events, taken back to before `migration` and opened again with today's code; its stats before. */
  async function reopenedFrom(migration: '0008_stats_counters' | '0018_stats_blocks') {
    const database = await databases.fresh();
    const clock = new ManualClock(NOW_S * 1000);
    const old = databases.keep(await createApi({ database, clock, rateLimits: UNLIMITED }));
    const keys = await setUp(old);
    await old.admin.loadEvents(ACCOUNT, eventsOf(keys.people, 'old', 300));
    const before = await expectExact(old, keys);
    await undoMigrationsFrom(old.db, migration);
    await databases.close(old);
    return { api: databases.keep(await createApi({ database, clock, rateLimits: UNLIMITED })), clock, keys, before };
  }

  it('migration 0008 fills the counters of data loaded before it, and loads after it add to the same buckets and sets', async () => {
    // Back to a database as the code before 0008 left it: data, no counters.
    const { api, keys, before } = await reopenedFrom('0008_stats_counters');
    expect(await expectExact(api, keys)).toEqual(before);
    // Events in the hours and days the migration filled, and a repeat of the old ones; people
    // who move to other sites and new ones, whose sets the migration recorded or not.
    await api.admin.loadEvents(ACCOUNT, [...eventsOf(keys.people, 'new', 300, 60), ...eventsOf(keys.people, 'old', 300)]);
    await api.admin.loadPeople(ACCOUNT, [...keys.people.slice(0, 6).map((p) => ({ ...p, visits: [{ ...p.visits[0]!, domain: 'other.example' }] })), { ...keys.people[7]!, id: 'per_new' }]);
    expect(await expectExact(api, keys)).not.toEqual(before);
  });

  it('migration 0018 fills the 16-day blocks from the day counters kept before it, and loads after it add to the same blocks', async () => {
    // Back to the hour and day counters alone, as the code before 0018 kept them.
    const { api, clock, keys, before } = await reopenedFrom('0018_stats_blocks');
    expect(await expectExact(api, keys)).toEqual(before);
    await api.admin.loadEvents(ACCOUNT, [...eventsOf(keys.people, 'new', 300, 60), ...eventsOf(keys.people, 'old', 300)]);
    expect(await expectExact(api, keys)).not.toEqual(before);
    // Windows of 365 and 30 days starting a second before, on and a second after a block's first second.
    const blockBefore = (s: number) => s - (s % (16 * DAY));
    for (const [days, start] of [[365, blockBefore(NOW_S - 200 * DAY)], [30, blockBefore(NOW_S - 10 * DAY)]] as const) {
      for (const now of [start + days * DAY - 1, start + days * DAY, start + days * DAY + 1]) {
        clock.set(now * 1000);
        await expectExact(api, keys, now);
      }
    }
  });

  it('a reset goes back to the baseline’s counters, and later loads count from there', async () => {
    const database = await databases.fresh();
    const api = databases.keep(await createApi({ database, clock: new ManualClock(NOW_S * 1000), rateLimits: UNLIMITED }));
    const keys = await setUp(api);
    await api.admin.loadEvents(ACCOUNT, eventsOf(keys.people, 'base', 200));
    await api.saveBaseline();
    const atBaseline = await expectExact(api, keys);
    await api.admin.loadEvents(ACCOUNT, eventsOf(keys.people, 'later', 200, 600));
    expect(await expectExact(api, keys)).not.toEqual(atBaseline);
    await api.reset();
    expect(await expectExact(api, keys)).toEqual(atBaseline);
    // The same later events load again as new after the reset, and count once.
    await api.admin.loadEvents(ACCOUNT, eventsOf(keys.people, 'later', 200, 600));
    await api.admin.loadEvents(ACCOUNT, eventsOf(keys.people, 'later', 200, 600));
    await expectExact(api, keys);
  });

  it('loads through admin over HTTP (NDJSON and a JSON array, a repeated id among them) count as a direct count does', async () => {
    const database = await databases.fresh();
    const api = databases.keep(await createApi({ database, clock: new ManualClock(NOW_S * 1000), rateLimits: UNLIMITED, admin: { token: TOKEN } }));
    const keys = await setUp(api);
    const post = async (body: string, type: string) => {
      const res = await api.fetch(new Request(`http://stats.test/_admin/accounts/${ACCOUNT}/events`, { method: 'POST', body, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': type } }));
      expect(res.status, await res.clone().text()).toBe(200);
    };
    const events = eventsOf(keys.people, 'http', 240);
    await post(events.slice(0, 150).map((e) => JSON.stringify(e)).join('\n'), 'application/x-ndjson');
    await post(JSON.stringify([...events.slice(100), { ...events[0]!, timestamp: NOW_S * 1000 }]), 'application/json');
    const [account] = await expectExact(api, keys);
    expect(account).toBeDefined();
  });

  it('the demo seeder and the webhook demo’s simulation keep the counts exact as time moves on', async () => {
    const database = await databases.fresh();
    const clock = new ManualClock(NOW_S * 1000);
    const api = databases.keep(await createApi({ database, clock, rateLimits: UNLIMITED }));
    await api.admin.createAccount({ id: ACCOUNT, name: 'Demo' });
    await seedDemo(api.admin, ACCOUNT, { seed: 11, people: 40, anchor: NOW_S * 1000 });
    const accountKey = (await api.admin.issueAccountKey(ACCOUNT)).key;
    const scopedKey = (await api.admin.issueScopedKey(ACCOUNT, 'acme-example.com')).key;
    const check = async () => {
      const now = Math.floor(clock.now() / 1000);
      for (const days of [1, 7, 30, 180]) {
        await expectStatsExact(api, accountKey, ACCOUNT, {}, days, now);
        await expectStatsExact(api, accountKey, ACCOUNT, { clientRef: 'globex' }, days, now);
        await expectStatsExact(api, scopedKey, ACCOUNT, { scopeDomain: 'acme-example.com' }, days, now);
      }
    };
    await check();
    const simulator = new DemoSimulator(api.admin, ACCOUNT, () => clock.now(), { newPeople: 3, returning: 2, seed: 5 });
    for (let tick = 0; tick < 6; tick++) {
      // Ticks 37 minutes apart cross hour edges, and the checks' windows start inside hours.
      clock.advance(37 * 60 + 13);
      await simulator.tick();
      await check();
    }
  });
});
