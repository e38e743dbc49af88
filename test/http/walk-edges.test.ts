import { describe, expect, it } from 'vitest';
import { MATRIX, serveWorld, type Client } from '../support/targets.ts';
import { isAfter, positionOf, walkFrom, withNewVisit } from '../support/walks.ts';
import { NOW, type World } from '../support/world.ts';

const HOUR = 3_600_000;

/** Whether rows are strictly in lastSeen-descending-then-id-descending order. */
const inKeysetOrder = (rows: any[]) => rows.every((row, i) => i === 0 || isAfter(row, positionOf(rows[i - 1])));

// docs/implementation-choices.md, "Ordering and paging": a walk never repeats or skips a row that existed when it
// began, and a row whose lastSeen changes during the walk (reloaded by the admin surface) moves
// to its new place. These pin what that means for a walk in progress: the pages after a cursor
// are the rows that are after its position, by (lastSeen, id) descending, as they stand now.
describe.each(MATRIX)('a people walk while lastSeen changes ($name)', (target) => {
  let world: World;
  let client: Client;
  serveWorld(target, {}, (w, c) => ((world = w), (client = c)), { per: 'test' });

  const person = (id: string) => world.people.find((p) => p.id === id)!;
  /** Ingests one more visit of a person on their latest site, at `at`. */
  const newVisit = async (id: string, at: number) => {
    const p = person(id);
    const latest = p.visits.reduce((a, b) => (Date.parse(String(b.lastSeen)) > Date.parse(String(a.lastSeen)) ? b : a));
    await world.api.admin.loadPeople('acc_a', [withNewVisit(p, latest.domain, at)]);
  };
  /** The whole list as it stands now (the fixture holds 90 people: one page of 100). */
  const current = async () => (await client.get('/v1/people?limit=100', world.accountKey)).body.data as any[];
  const ids = (rows: any[]) => rows.map((r) => r.id);

  it('does not return a person again when their new visit lifts them above the cursor after their page was read', async () => {
    const page1 = (await client.get('/v1/people?limit=20', world.accountKey)).body;
    const moved = page1.data[5].id;
    world.clock.advance(60);
    await newVisit(moved, NOW + 60_000);

    const rest = await walkFrom(client, '/v1/people', world.accountKey, page1.pagination.nextCursor, 20);
    const walked = [...ids(page1.data), ...ids(rest)];
    expect(new Set(walked).size).toBe(walked.length);
    expect([...walked].sort()).toEqual(world.people.map((p) => p.id).sort());
    expect(ids(rest)).not.toContain(moved);
    // The person did move: a walk begun now meets them first, with the visit counted.
    const now = await current();
    expect(now[0]).toMatchObject({ id: moved, lastSeen: '2026-11-21T12:01:00Z', visitCount: page1.data[5].visitCount + 1 });
  });

  it('passes by a person not reached yet whose new visit lifts them above the cursor, and returns everyone else exactly once', async () => {
    const before = await current();
    const page1 = (await client.get('/v1/people?limit=20', world.accountKey)).body;
    const skipped = before[60].id;
    world.clock.advance(60);
    await newVisit(skipped, NOW + 60_000);

    const rest = await walkFrom(client, '/v1/people', world.accountKey, page1.pagination.nextCursor, 20);
    const walked = [...ids(page1.data), ...ids(rest)];
    expect(new Set(walked).size).toBe(walked.length);
    // Moved to its new place, which this walk has already passed; every unchanged row comes once.
    expect(walked).not.toContain(skipped);
    expect([...walked].sort()).toEqual(world.people.map((p) => p.id).filter((id) => id !== skipped).sort());
    expect((await current())[0].id).toBe(skipped);
  });

  it('returns a person not reached yet exactly once, at their new place, when their new lastSeen stays below the cursor', async () => {
    const before = await current();
    const page1 = (await client.get('/v1/people?limit=20', world.accountKey)).body;
    const cursorAt = positionOf(page1.data.at(-1));
    const mover = before[70].id;
    // Half an hour after the 41st row's lastSeen (the fixture's times are whole hours): a place of its own below the cursor.
    const at = Date.parse(before[40].lastSeen) + HOUR / 2;
    expect(at / 1000).toBeLessThan(cursorAt.lastSeen);
    await newVisit(mover, at);

    const rest = await walkFrom(client, '/v1/people', world.accountKey, page1.pagination.nextCursor, 20);
    expect(ids(rest).filter((id) => id === mover)).toHaveLength(1);
    expect(inKeysetOrder(rest)).toBe(true);
    const index = ids(rest).indexOf(mover);
    expect(rest[index - 1].lastSeen > rest[index].lastSeen && rest[index].lastSeen > rest[index + 1].lastSeen).toBe(true);
    expect(rest[index].lastSeen).toBe(new Date(at).toISOString().replace('.000', ''));
    // Exactly the rows after the cursor's position as they stand now.
    expect(rest).toEqual((await current()).filter((row) => isAfter(row, cursorAt)));
  });

  it('carries on from where the page ended when the row that ended it gets a new visit and moves to the top', async () => {
    const page1 = (await client.get('/v1/people?limit=20', world.accountKey)).body;
    const ender = page1.data.at(-1);
    world.clock.advance(60);
    await newVisit(ender.id, NOW + 60_000);

    // The cursor holds the position the page ended at, not a reference to the row: the walk
    // goes on from there, losing nothing after it and meeting the moved row nowhere again.
    const rest = await walkFrom(client, '/v1/people', world.accountKey, page1.pagination.nextCursor, 20);
    expect(rest).toEqual((await current()).filter((row) => isAfter(row, positionOf(ender))));
    const walked = [...ids(page1.data), ...ids(rest)];
    expect(new Set(walked).size).toBe(90);
    expect(walked).toHaveLength(90);
  });

  it('ends and repeats nobody when every page of the walk is followed by more new visits', async () => {
    // A busy site: between any two pages, a person already returned and the next person not
    // reached yet both come back. The walk must still end, each person at most once; the ones
    // lifted before it reached them are the only ones it passes by.
    const seen: string[] = [];
    const lifted: string[] = [];
    let page = (await client.get('/v1/people?limit=10', world.accountKey)).body;
    for (let pages = 1; ; pages++) {
      expect(pages, 'the walk ends').toBeLessThan(20);
      seen.push(...ids(page.data));
      const cursor = page.pagination.nextCursor;
      if (!cursor) break;
      const ahead = (await client.get(`/v1/people?limit=1&cursor=${encodeURIComponent(cursor)}`, world.accountKey)).body.data[0].id;
      lifted.push(ahead);
      world.clock.advance(60);
      for (const id of [seen[pages - 1]!, ahead]) await newVisit(id, world.clock.now());
      page = (await client.get(`/v1/people?limit=10&cursor=${encodeURIComponent(cursor)}`, world.accountKey)).body;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((id) => lifted.includes(id))).toEqual([]);
    expect([...seen, ...lifted].sort()).toEqual(world.people.map((p) => p.id).sort());
  });
});

describe.each(MATRIX)('a scoped people walk while lastSeen changes elsewhere ($name)', (target) => {
  let world: World;
  let client: Client;
  serveWorld(target, {}, (w, c) => ((world = w), (client = c)), { per: 'test' });

  it('keeps a person in place in a domain-scoped walk when their new visit is on another site', async () => {
    const key = world.scopedKeys['beta.example']!;
    const { rows: full } = await client.walk('/v1/people', key, 100);
    const page1 = (await client.get('/v1/people?limit=5', key)).body;
    // Someone beta sees, not reached yet, who was also seen on another site.
    const mover = world.people.find((p) => p.visits.length > 1 && full.slice(5).some((r) => r.id === p.id))!;
    const elsewhere = mover.visits.find((v) => v.domain !== 'beta.example')!.domain;
    world.clock.advance(60);
    await world.api.admin.loadPeople('acc_a', [withNewVisit(mover, elsewhere, NOW + 60_000)]);

    // Beta's key reads beta's own figures, which did not change: its walk is the one it began.
    const rest = await walkFrom(client, '/v1/people', key, page1.pagination.nextCursor, 5);
    expect([...page1.data, ...rest]).toEqual(full);
    // Account-wide, the same person did move to the top.
    expect((await client.get('/v1/people?limit=1', world.accountKey)).body.data[0].id).toBe(mover.id);
  });
});
