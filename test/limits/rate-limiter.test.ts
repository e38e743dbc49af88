import { afterEach, describe, expect, it } from 'vitest';
import { createApi, ManualClock, type Api } from '../../adapters/node/index.ts';
import { HourlyRateLimiter } from '../../core/limits/rate-limiter.ts';
import { RateLimitsStore } from '../../core/store/rate-limits-store.ts';
import { BACKENDS, type OpenedDatabase } from '../support/backends.ts';

describe.each(BACKENDS)('the hourly rate limiter ($name)', (backend) => {
  let opened: OpenedDatabase;
  let api: Api;
  afterEach(async () => (await api.close(), await opened.drop()));

  /** A limiter over a freshly migrated database of the backend, and its store, which counts its counts (and can hold one). */
  const limiterWithStore = async (clock: ManualClock) => {
    opened = await backend.open();
    api = await createApi({ database: opened.database, clock, onError: () => undefined });
    const store = new DelayedStore(api.db);
    return { store, limiter: new HourlyRateLimiter(clock, store) };
  };
  /** A limiter over a freshly migrated database of the backend. */
  const limiterAt = async (clock: ManualClock) => (await limiterWithStore(clock)).limiter;

  it('allows the limit per window, then refuses with the seconds left, and opens a new window after an hour', async () => {
    const clock = new ManualClock(0);
    const limiter = await limiterAt(clock);
    expect(await limiter.take('a', 2)).toMatchObject({ allowed: true, remaining: 1 });
    clock.advance(100);
    expect(await limiter.take('a', 2)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await limiter.take('a', 2)).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 3500 });
    expect(await limiter.take('b', 2)).toMatchObject({ allowed: true, remaining: 1 });
    clock.advance(3499);
    expect(await limiter.take('a', 2)).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    clock.advance(1);
    expect(await limiter.take('a', 2)).toMatchObject({ allowed: true, remaining: 1, retryAfterSeconds: 3600 });
  });

  it('counts requests that arrive together as if one by one: each takes its own place in its bucket, in arrival order', async () => {
    const clock = new ManualClock(0);
    const limiter = await limiterAt(clock);
    await limiter.take('a', 3);
    const together = await Promise.all([limiter.take('a', 3), limiter.take('b', 2), limiter.take('a', 3), limiter.take('a', 3), limiter.take('b', 2)]);
    expect(together.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 1],
      [true, 1],
      [true, 0],
      [false, 0],
      [true, 0],
    ]);
    const rows = await api.db.selectFrom('rate_limits').select(['bucket', 'used']).orderBy('bucket').execute();
    expect(rows).toEqual([
      { bucket: 'a', used: 4 },
      { bucket: 'b', used: 2 },
    ]);
  });

  /** The bucket's count as stored. */
  const stored = async (bucket: string) => (await api.db.selectFrom('rate_limits').select('used').where('bucket', '=', bucket).executeTakeFirst())?.used;

  it('counts places ahead under load, hands them to the next requests at once, in order, and gives the unused back on close', async () => {
    const clock = new ManualClock(0);
    const limiter = await limiterAt(clock);
    // A first count in a window counts only itself.
    expect(await limiter.take('a', 1000)).toMatchObject({ remaining: 999 });
    expect(await stored('a')).toBe(1);
    // Four together: their own places 2–5, and as many more.
    const together = await Promise.all([1, 2, 3, 4].map(() => limiter.take('a', 1000)));
    expect(together.map((d) => d.remaining)).toEqual([998, 997, 996, 995]);
    expect(await stored('a')).toBe(9);
    // The next four take places 6–9 with no statement: the stored count stands.
    for (const remaining of [994, 993, 992, 991]) expect(await limiter.take('a', 1000)).toMatchObject({ allowed: true, remaining });
    expect(await stored('a')).toBe(9);
    // Then a count again: its own place 10, and five more, for itself and the four served since the last.
    expect(await limiter.take('a', 1000)).toMatchObject({ remaining: 990 });
    expect(await stored('a')).toBe(15);
    await limiter.close();
    // Ten requests served: the five places held are given back.
    expect(await stored('a')).toBe(10);
  });

  it('counts ahead for a client that comes back alone too, a place more each count, up to its cap, each request its own place in order', async () => {
    const { store, limiter } = await limiterWithStore(new ManualClock(0));
    const remaining: number[] = [];
    for (let i = 0; i < 100; i++) remaining.push((await limiter.take('a', 10_000)).remaining);
    expect(remaining).toEqual(Array.from({ length: 100 }, (_, i) => 9_999 - i));
    // Counts of 1, 2, 3, … places: the 14th holds 105 in all.
    expect([store.counts, await stored('a')]).toEqual([14, 105]);
    // No count reserves more than 32 places ahead (1% of this limit would allow 100): once there,
    // a count every 33 requests.
    for (let i = 0; i < 1_000; i++) await limiter.take('a', 10_000);
    const before = store.counts;
    for (let i = 0; i < 990; i++) await limiter.take('a', 10_000);
    expect(store.counts - before).toBe(30);
    await limiter.close();
    // Every place held is given back: the stored count is the requests served.
    expect(await stored('a')).toBe(2_090);
  });

  it('reserves no place past the limit, nor in a window that has closed', async () => {
    const clock = new ManualClock(0);
    const limiter = await limiterAt(clock);
    await limiter.take('a', 100);
    // A limit of 100 allows one place ahead; the count before left room for it.
    await Promise.all([limiter.take('a', 100), limiter.take('a', 100)]);
    expect(await stored('a')).toBe(4);
    clock.advance(3600 * 1000);
    // The held place went with its window: this request opens a new one, counting itself alone.
    expect(await limiter.take('a', 100)).toMatchObject({ remaining: 99, retryAfterSeconds: 3600 });
    expect(await stored('a')).toBe(1);
    await limiter.close();
    expect(await stored('a')).toBe(1);
    // Near the limit no place is reserved: 98 used, then three together take 99, 100 and a refusal.
    await api.db.updateTable('rate_limits').set({ used: 97 }).execute();
    await limiter.take('a', 100);
    const last = await Promise.all([1, 2, 3].map(() => limiter.take('a', 100)));
    expect(last.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    expect(await stored('a')).toBe(101);
  });

  /** A limiter whose second count (two requests and two places ahead) is written and waits to answer until `store.resume()`. */
  const countInFlight = async () => {
    const { store, limiter } = await limiterWithStore(new ManualClock(0));
    await limiter.take('a', 1000);
    store.hold();
    const early = Promise.all([limiter.take('a', 1000), limiter.take('a', 1000)]);
    while ((await stored('a')) !== 5) await new Promise((r) => setTimeout(r, 1));
    return { store, limiter, early };
  };

  it("waits for the bucket's count in flight, and hands its places out first, each once, in order (counts overlap on Postgres)", async () => {
    const { store, limiter, early } = await countInFlight();
    const late = Promise.all([1, 2, 3].map(() => limiter.take('a', 1000)));
    // A turn later the late requests still wait: no second count while the first is in flight.
    await new Promise((r) => setTimeout(r, 20));
    expect([store.counts, await stored('a')]).toEqual([2, 5]);
    store.resume();
    expect((await early).map((d) => d.remaining)).toEqual([998, 997]);
    // The first two late requests take places 4–5, held by the early count; the third is counted
    // (place 6, and three ahead: for itself and the two served since).
    expect((await late).map((d) => d.remaining)).toEqual([996, 995, 994]);
    expect(await stored('a')).toBe(9);
    await limiter.close();
    expect(await stored('a')).toBe(6);
  });

  it('forgets on an admin reset the places a count in flight was reserving', async () => {
    const { store, limiter, early } = await countInFlight();
    const reset = limiter.clear();
    store.resume();
    await Promise.all([early, reset]);
    // The place held ahead belonged to the window the reset removed: the next request opens a new one.
    expect(await limiter.take('a', 1000)).toMatchObject({ remaining: 999 });
    expect(await stored('a')).toBe(1);
    await limiter.close();
  });

  it('gives back on close only the places no later count came after', async () => {
    const clock = new ManualClock(0);
    const limiter = await limiterAt(clock);
    const other = new HourlyRateLimiter(clock, new RateLimitsStore(api.db));
    await limiter.take('a', 1000);
    await Promise.all([1, 2, 3].map(() => limiter.take('a', 1000)));
    // Places 2–4 handed out, 5–7 held; another process then counts place 8.
    expect(await stored('a')).toBe(7);
    expect(await other.take('a', 1000)).toMatchObject({ remaining: 992 });
    await limiter.close();
    // Giving 5–7 back would hand out place 8 again: they stay counted.
    expect(await stored('a')).toBe(8);
    await other.close();
  });

  it('holds no place past the limit when other processes used the room its count reserved for', async () => {
    const clock = new ManualClock(0);
    const limiter = await limiterAt(clock);
    await limiter.take('a', 100);
    // Another process takes the bucket to 99 meanwhile.
    await api.db.updateTable('rate_limits').set({ used: 99 }).execute();
    // Three together reserve one place ahead, as the room known from the last count allowed: 100–103.
    const together = await Promise.all([1, 2, 3].map(() => limiter.take('a', 100)));
    expect(together.map((d) => d.allowed)).toEqual([true, false, false]);
    expect(await stored('a')).toBe(103);
    // Place 103 is past the limit: it is not held, and the next request is counted, and refused.
    expect(await limiter.take('a', 100)).toMatchObject({ allowed: false });
    expect(await stored('a')).toBe(104);
  });

  it('peeks at a bucket without counting, and reports a closed window as a full budget', async () => {
    const clock = new ManualClock(0);
    const limiter = await limiterAt(clock);
    expect(await limiter.peek('a', 3)).toMatchObject({ allowed: true, remaining: 3, retryAfterSeconds: 3600 });
    await limiter.take('a', 3);
    clock.advance(60);
    expect(await limiter.peek('a', 3)).toMatchObject({ allowed: true, remaining: 2, retryAfterSeconds: 3540 });
    expect(await limiter.peek('a', 3)).toMatchObject({ remaining: 2 });
    clock.advance(3540);
    expect(await limiter.peek('a', 3)).toMatchObject({ remaining: 3, retryAfterSeconds: 3600 });
  });

  it('deletes closed windows once an hour of the clock has passed, and keeps open ones', async () => {
    const clock = new ManualClock(0);
    const limiter = await limiterAt(clock);
    await limiter.take('old', 5);
    clock.advance(1800);
    await limiter.take('young', 5);
    clock.advance(1800);
    // The hour since the limiter started has passed: this request sweeps first.
    await limiter.take('young', 5);
    const rows = await api.db.selectFrom('rate_limits').select(['bucket', 'used']).orderBy('bucket').execute();
    expect(rows).toEqual([{ bucket: 'young', used: 2 }]);
  });
});

/** A store whose counts are written at once but, from `hold()` until `resume()`, answer only then (the first count held; later ones answer at once). */
class DelayedStore extends RateLimitsStore {
  counts = 0;
  #delayed: Promise<void> | undefined;
  #resume = () => {};

  hold(): void {
    this.#delayed = new Promise((r) => (this.#resume = r));
  }

  resume(): void {
    this.#resume();
  }

  override async count(...args: Parameters<RateLimitsStore['count']>) {
    this.counts++;
    const wait = this.#delayed;
    this.#delayed = undefined;
    const window = await super.count(...args);
    await wait;
    return window;
  }
}
