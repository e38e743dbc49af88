import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { PersonInput } from '../../core/index.ts';
import { BACKENDS, type Backend } from '../support/backends.ts';
import { expectStatsExact, worldViews } from '../support/stats-oracle.ts';
import { createWorld, NOW, type World } from '../support/world.ts';

/**
 * totalPeople and totalCompanies come from counts of people and companies per set of sites they
 * were seen on. These tests change those sets every way loading can (people moving, gaining and
 * losing sites, changing company, companies left with nobody, companies loaded alone) and compare
 * every view with a direct distinct count after each change.
 */

const NOW_S = NOW / 1000;
const DAY = 86_400;
const UNLIMITED = { accountPerHour: 1e9, scopedKeyPerHour: 1e9 };
const iso = (s: number) => new Date(s * 1000).toISOString();

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

/** Every view's totals against a direct count, and no set left counting nobody. */
async function expectAllViewsExact(world: World): Promise<void> {
  for (const { key, view } of worldViews(world)) await expectStatsExact(world.api, key, 'acc_a', view, 30, NOW_S);
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from site_sets where members <= 0`.execute(world.api.db);
  expect(Number(rows[0]!.n)).toBe(0);
}

const visit = (domain: string, daysAgo = 1) => ({ domain, visitCount: 1, firstSeen: iso(NOW_S - 30 * DAY), lastSeen: iso(NOW_S - daysAgo * DAY) });

/** A world person with other visits and company. */
function changed(world: World, id: string, visits: PersonInput['visits'], companyId?: string | null): PersonInput {
  const person = world.people.find((p) => p.id === id)!;
  return { ...person, visits, ...(companyId === undefined ? {} : { companyId }) };
}

describe.each(BACKENDS)('stats totals from site sets ($name)', (backend) => {
  const newWorld = worldsOn(backend);

  it('follows people who move, gain and lose sites, and change or leave companies, in every view', async () => {
    const world = await newWorld();
    await expectAllViewsExact(world);
    // per_000 moves from alpha.example to beta.example; per_001 adds a third site; per_007 keeps one of two.
    await world.api.admin.loadPeople('acc_a', [
      changed(world, 'per_000', [visit('beta.example')]),
      changed(world, 'per_001', [visit('shop.alpha.example'), visit('beta.example'), visit('gamma.example')]),
      changed(world, 'per_007', [visit('beta.example')]),
    ]);
    await expectAllViewsExact(world);
    // Every person of co_03 moves to co_05 (co_03 is left with nobody: counted account-wide, in no site's view).
    const ofCo03 = world.people.filter((p) => p.companyId === 'co_03');
    expect(ofCo03.length).toBeGreaterThan(0);
    await world.api.admin.loadPeople('acc_a', ofCo03.map((p) => changed(world, p.id, p.visits, 'co_05')));
    await expectAllViewsExact(world);
    // Companies loaded alone, one of them reloaded: no sites, still in the account's total.
    await world.api.admin.loadCompanies('acc_a', [{ id: 'co_new1', name: 'New 1' }, { id: 'co_new2', name: 'New 2' }, { id: 'co_00', name: 'Company 0 renamed' }]);
    await expectAllViewsExact(world);
    // A new person of a lone company brings it onto a site; the same people loaded again change nothing.
    await world.api.admin.loadPeople('acc_a', [{ id: 'per_new', companyId: 'co_new1', visits: [visit('badalpha.example'), visit('alpha.example', 2)] }]);
    await world.api.admin.loadPeople('acc_a', world.people.slice(40, 60));
    await expectAllViewsExact(world);
  });

  it('keeps totals exact when loads of the same people and companies run at once', async () => {
    const world = await newWorld();
    const people = world.people.slice(0, 30);
    const variants = [
      people.map((p, i) => changed(world, p.id, [visit(i % 2 ? 'beta.example' : 'gamma.example')], `co_0${i % 4}`)),
      people.map((p) => changed(world, p.id, [visit('alpha.example'), visit('beta.example', 3)], 'co_09')),
      people.map((p) => changed(world, p.id, p.visits, null)),
    ];
    await Promise.all([...variants, variants[0]!].map((batch) => world.api.admin.loadPeople('acc_a', batch)));
    await expectAllViewsExact(world);
  });

  it('gives a failed people load no effect on the totals', async () => {
    const world = await newWorld();
    const good = changed(world, 'per_000', [visit('beta.example')]);
    const bad = { ...changed(world, 'per_001', [visit('beta.example')]), companyId: 'co_missing' };
    await expect(world.api.admin.loadPeople('acc_a', [good, bad])).rejects.toThrow(/co_missing/);
    await expectAllViewsExact(world);
  });
});
