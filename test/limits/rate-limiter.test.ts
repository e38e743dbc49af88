import { afterEach, describe, expect, it } from 'vitest';
import { createApi, ManualClock, type Api } from '../../adapters/node/index.ts';
import { HourlyRateLimiter } from '../../core/limits/rate-limiter.ts';
import { RateLimitsStore } from '../../core/store/rate-limits-store.ts';
import { BACKENDS, type OpenedDatabase } from '../support/backends.ts';

describe.each(BACKENDS)('the hourly rate limiter ($name)', (backend) => {
  let opened: OpenedDatabase;
  let api: Api;
  afterEach(async () => (await api.close(), await opened.drop()));

  /** A limiter over a freshly migrated database of the backend. */
  const limiterAt = async (clock: ManualClock) => {
    opened = await backend.open();
    api = await createApi({ database: opened.database, clock, onError: () => undefined });
    return new HourlyRateLimiter(clock, new RateLimitsStore(api.db));
  };

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
