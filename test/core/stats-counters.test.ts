import { afterEach, describe, expect, it } from 'vitest';
import type { EventInput } from '../../core/index.ts';
import { BACKENDS, type Backend } from '../support/backends.ts';
import { directCounts, expectStatsExact, worldViews } from '../support/stats-oracle.ts';
import { createWorld, NOW, type World } from '../support/world.ts';

const HOUR = 3_600;
const DAY = 86_400;
const NOW_S = NOW / 1000;
const UNLIMITED = { accountPerHour: 1e9, scopedKeyPerHour: 1e9 };

/** Worlds of the running test on `backend`, dropped after it. */
function worldsOn(backend: Backend): () => Promise<World> {
  const open: World[] = [];
  afterEach(async () => {
    for (const world of open.splice(0)) await world.close();
  });
  return async () => {
    const world = await createWorld({ backend, rateLimits: UNLIMITED });
    open.push(world);
    return world;
  };
}

/** A small deterministic generator, so the times are the same on every run and backend. */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => (state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0) / 2 ** 32;
}

/** Who may have events where: each world person's sites (their primary, and beta.example for some). */
function visitsOf(world: World): { personId: string; domain: string }[] {
  return world.people.flatMap((p) => p.visits.map((v) => ({ personId: p.id, domain: String(v.domain) })));
}

/**
 * Events at the times a window's edges can fall on: whole hours and days before and after now,
 * a second either side of them, random seconds over 400 days, the future, and before 1970.
 */
function trickyEvents(world: World, prefix: string, count: number, seed: number): EventInput[] {
  const random = lcg(seed);
  const who = visitsOf(world);
  const offsets = [0, 1, -1, HOUR, HOUR - 1, HOUR + 1, DAY, DAY - 1, DAY + 1, 7 * DAY, 30 * DAY, 30 * DAY + 1, 365 * DAY, 365 * DAY + 1, 365 * DAY - 1];
  const times: number[] = [...offsets.map((o) => NOW_S - o), ...offsets.map((o) => NOW_S + o), -1, 0, -DAY - 7];
  while (times.length < count) {
    const r = random();
    // Mostly the last 400 days, some within hours of now (where partial hours matter), a few ahead.
    times.push(r < 0.7 ? NOW_S - Math.floor(random() * 400 * DAY) : r < 0.95 ? NOW_S - Math.floor(random() * 3 * DAY) : NOW_S + Math.floor(random() * 5 * DAY));
  }
  return times.slice(0, count).map((ts, i) => {
    const { personId, domain } = who[Math.floor(random() * who.length)]!;
    return { eventId: `${prefix}_${i}`, personId, sessionId: `ses_${prefix}`, eventType: 'page_view', timestamp: ts * 1000, url: `https://${domain}/t/${i}`, domain };
  });
}

/**
 * Clock times whose windows start on an hour, a day, a second either side, on an event's own
 * second, at odd seconds, and in each half of an hour (the partial hour is counted from its
 * shorter side: the second half from the events after the start, the first from the hour's bucket less those before).
 */
function clockTimes(): number[] {
  return [NOW_S, NOW_S + 1, NOW_S - 1, NOW_S + 2_707, NOW_S + 12 * HOUR, NOW_S + 3 * DAY + 4_321, NOW_S - 7 * DAY + 59, NOW_S - 5 * DAY + 1_800, NOW_S + 1_799];
}

describe.each(BACKENDS)('GET /v1/stats from event counters ($name)', (backend) => {
  const newWorld = worldsOn(backend);

  it('answers exactly what a direct count gives, for every view, every period and clock times at every kind of edge', async () => {
    const world = await newWorld();
    await world.api.admin.loadEvents('acc_a', trickyEvents(world, 'tr', 600, 17));
    const allDays = [undefined, 1, 2, 3, 7, 29, 30, 31, 90, 180, 364, 365];
    // Every clock time on SQLite; on Postgres, where a request costs ten times more, those at the edges (the bucket arithmetic is the same code).
    for (const now of clockTimes().filter((_, i) => backend.name === 'sqlite' || i < 5)) {
      world.clock.set(now * 1000);
      for (const { key, view } of worldViews(world)) {
        // Every view at a few periods; the account key at every period.
        const days = view.domain === undefined && view.clientRef === undefined && view.scopeDomain === undefined ? allDays : [1, 365];
        for (const d of days) await expectStatsExact(world.api, key, 'acc_a', view, d, now);
      }
    }
  }, 180_000);

  it('every days value from 1 to 365 (a sample of them on Postgres) at clock times off every boundary in each half of an hour, account-wide and for a scoped key over a domain and its subdomain', async () => {
    const world = await newWorld();
    await world.api.admin.loadEvents('acc_a', trickyEvents(world, 'all', 800, 5));
    // Every value on SQLite; on Postgres, where each request costs ten times more, every 13th and the ends (the bucket arithmetic is the same code).
    const every = Array.from({ length: 365 }, (_, i) => i + 1).filter((d) => backend.name === 'sqlite' || d % 13 === 0 || d <= 2 || d >= 364);
    // A window starting in the first half of an hour, then one in the second half.
    for (const now of [NOW_S + 2 * HOUR + 1_234, NOW_S + 5 * HOUR + 2_345]) {
      world.clock.set(now * 1000);
      for (const days of every) {
        await expectStatsExact(world.api, world.accountKey, 'acc_a', {}, days, now);
        await expectStatsExact(world.api, world.scopedKeys['alpha.example']!, 'acc_a', { scopeDomain: 'alpha.example' }, days, now);
      }
    }
  }, 180_000);

  it('counts an event id once however often it is loaded: a second copy in the batch and a reload with another time count nothing', async () => {
    const world = await newWorld();
    const before = await directCounts(world.api.db, 'acc_a', {}, NOW_S - DAY);
    const [a, b] = trickyEvents(world, 'dup', 2, 3).map((e, i) => ({ ...e, timestamp: (NOW_S - HOUR * (i + 1) - 5) * 1000 }));
    // Within one batch the first copy stays; its twin's time (a day back, in another bucket) is not counted.
    expect(await world.api.admin.loadEvents('acc_a', [a!, { ...a!, timestamp: (NOW_S - 20 * HOUR) * 1000 }, b!])).toBe(2);
    expect(await world.api.admin.loadEvents('acc_a', [{ ...a!, timestamp: (NOW_S - 2 * DAY) * 1000 }, { ...b!, timestamp: NOW_S * 1000 }])).toBe(0);
    const after = await expectStatsExact(world.api, world.accountKey, 'acc_a', {}, 1, NOW_S);
    expect(after.recentEvents).toBe(before.recentEvents + 2);
    // Windows that start between the copies' times tell which copy was counted.
    for (const edge of [HOUR + 4, HOUR + 6, 2 * HOUR + 4, 2 * HOUR + 6, 20 * HOUR]) {
      world.clock.set((NOW_S - edge + DAY) * 1000);
      await expectStatsExact(world.api, world.accountKey, 'acc_a', {}, 1, NOW_S - edge + DAY);
    }
  });

  it('counts nothing from a load that is refused: the transaction takes its counters with it', async () => {
    const world = await newWorld();
    const before = await expectStatsExact(world.api, world.accountKey, 'acc_a', {}, 365, NOW_S);
    const good = trickyEvents(world, 'ok', 30, 9);
    const bad: EventInput = { ...good[0]!, eventId: 'bad', personId: 'per_000', domain: 'beta.example', url: 'https://beta.example/' };
    await expect(world.api.admin.loadEvents('acc_a', [...good, bad])).rejects.toThrow(/no visits on beta\.example/);
    expect(await expectStatsExact(world.api, world.accountKey, 'acc_a', {}, 365, NOW_S)).toEqual(before);
  });

  it('stays exact when several loads of the same hours run at once', async () => {
    const world = await newWorld();
    const batches = [0, 1, 2, 3].map((k) => trickyEvents(world, `par${k}`, 150, 100 + k).map((e) => ({ ...e, timestamp: (NOW_S - (Number(e.eventId.split('_')[1]) % 5) * HOUR - 30) * 1000 })));
    // The same ids twice across loads running together: only one copy of each may count.
    await Promise.all([...batches, batches[0]!].map((batch) => world.api.admin.loadEvents('acc_a', batch)));
    for (const days of [1, 30]) {
      await expectStatsExact(world.api, world.accountKey, 'acc_a', {}, days, NOW_S);
      await expectStatsExact(world.api, world.scopedKeys['beta.example']!, 'acc_a', { scopeDomain: 'beta.example' }, days, NOW_S);
    }
  });

  it('gives another account none of these counts, though both registered alpha.example', async () => {
    const world = await newWorld();
    await world.api.admin.loadEvents('acc_b', [{ eventId: 'b1', personId: 'per_b_only', sessionId: 's', eventType: 'page_view', timestamp: (NOW_S - 60) * 1000, url: 'https://alpha.example/', domain: 'alpha.example' }]);
    expect(await expectStatsExact(world.api, world.otherAccountKey, 'acc_b', {}, 1, NOW_S)).toMatchObject({ recentEvents: 1 });
    await expectStatsExact(world.api, world.accountKey, 'acc_a', {}, 1, NOW_S);
    await expectStatsExact(world.api, world.scopedKeys['alpha.example']!, 'acc_a', { scopeDomain: 'alpha.example' }, 1, NOW_S);
  });
});
