import { afterEach, describe, expect, it } from 'vitest';
import { createApi, ManualClock, type Api } from '../../adapters/node/index.ts';
import { HourlyRateLimiter } from '../../core/limits/rate-limiter.ts';
import { RateLimitsStore } from '../../core/store/rate-limits-store.ts';
import { BACKENDS, type OpenedDatabase } from '../support/backends.ts';

describe.each(BACKENDS)('the hourly rate limiter ($name)', (backend) => {
  let opened: OpenedDatabase;
  let api: Api;
  afterEach(async () => (await api.close(), await opened.drop()));

  /** A limiter over a freshly migrated database of the backend, and its store, which counts its statements. */
  const limiterWithStore = async (clock: ManualClock) => {
    opened = await backend.open();
    api = await createApi({ database: opened.database, clock, onError: () => undefined });
    const store = new CountingStore(api.db);
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

  /** The bucket's count as stored. */
  const stored = async (bucket: string) => (await api.db.selectFrom('rate_limits').select('used').where('bucket', '=', bucket).executeTakeFirst())?.used;

  it('counts requests that arrive together one by one: each takes its own place in its bucket', async () => {
    const clock = new ManualClock(0);
    const limiter = await limiterAt(clock);
    await limiter.take('a', 3);
    const together = await Promise.all([limiter.take('a', 3), limiter.take('b', 2), limiter.take('a', 3), limiter.take('a', 3), limiter.take('b', 2)]);
    // Concurrent statements may land in any order (a pool on Postgres): the places, not who got which.
    const places = (picked: number[]) =>
      picked.map((i) => [together[i]!.allowed, together[i]!.remaining] as const).sort((x, y) => y[1] - x[1] || Number(y[0]) - Number(x[0]));
    expect(places([0, 2, 3])).toEqual([
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    expect(places([1, 4])).toEqual([
      [true, 1],
      [true, 0],
    ]);
    expect([await stored('a'), await stored('b')]).toEqual([4, 2]);
  });

  it('counts each request by one statement of its own, so the stored count is always the requests counted, none ahead', async () => {
    const { store, limiter } = await limiterWithStore(new ManualClock(0));
    for (let i = 1; i <= 50; i++) {
      expect(await limiter.take('a', 1000)).toMatchObject({ allowed: true, remaining: 1000 - i });
      expect(await stored('a')).toBe(i);
    }
    const together = await Promise.all(Array.from({ length: 20 }, () => limiter.take('a', 1000)));
    expect(together.map((d) => d.remaining).sort((x, y) => y - x)).toEqual(Array.from({ length: 20 }, (_, i) => 949 - i));
    expect([store.counts, await stored('a')]).toEqual([70, 70]);
  });

  it('shares a bucket with another process on the database: each hands out the next place, and refuses once the other spent the rest', async () => {
    const clock = new ManualClock(0);
    const limiter = await limiterAt(clock);
    const other = new HourlyRateLimiter(clock, new RateLimitsStore(api.db));
    expect(await limiter.take('a', 3)).toMatchObject({ allowed: true, remaining: 2 });
    expect(await other.take('a', 3)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await other.take('a', 3)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await limiter.take('a', 3)).toMatchObject({ allowed: false, remaining: 0 });
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

/** A store that counts the counting statements it runs. */
class CountingStore extends RateLimitsStore {
  counts = 0;

  override async count(...args: Parameters<RateLimitsStore['count']>) {
    this.counts++;
    return super.count(...args);
  }
}
