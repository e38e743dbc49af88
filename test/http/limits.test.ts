import { describe, expect, it } from 'vitest';
import { errorCode } from '../support/client.ts';
import { MATRIX, serveWorld, type Client } from '../support/targets.ts';
import type { World } from '../support/world.ts';

describe.each(MATRIX)('hourly rate limits ($name)', (target) => {
  let world: World;
  let client: Client;
  // Every test starts from a world of its own: full budgets, the clock at NOW, no open window.
  serveWorld(target, { rateLimits: { accountPerHour: 8, scopedKeyPerHour: 3 } }, (w, c) => ((world = w), (client = c)), { per: 'test' });

  /** Spends `n` requests of a key's budget, each of them allowed. */
  const spend = async (key: string, n: number) => {
    for (let i = 0; i < n; i++) expect((await client.get('/v1/stats', key)).status).toBe(200);
  };

  it('counts down X-RateLimit-Remaining, shared by all of the account keys', async () => {
    const remaining: string[] = [];
    for (const key of [world.accountKey, world.secondAccountKey, world.accountKey]) {
      const reply = await client.get('/v1/stats', key);
      expect(reply.headers.get('x-ratelimit-limit')).toBe('8');
      remaining.push(reply.headers.get('x-ratelimit-remaining')!);
    }
    expect(remaining).toEqual(['7', '6', '5']);
  });

  it('counts requests that end in an error', async () => {
    const reply = await client.get('/v1/people?limit=500', world.accountKey);
    expect(reply.status).toBe(400);
    expect(reply.headers.get('x-ratelimit-remaining')).toBe('7');
    const next = await client.get('/v1/stats', world.accountKey);
    expect(next.headers.get('x-ratelimit-remaining')).toBe('6');
  });

  it('gives each domain-scoped key its own budget, apart from the account', async () => {
    expect((await client.get('/v1/stats', world.accountKey)).headers.get('x-ratelimit-remaining')).toBe('7');
    const reply = await client.get('/v1/stats', world.scopedKeys['beta.example']);
    expect(reply.headers.get('x-ratelimit-limit')).toBe('3');
    expect(reply.headers.get('x-ratelimit-remaining')).toBe('2');
    const other = await client.get('/v1/stats', world.scopedKeys['gamma.example']);
    expect(other.headers.get('x-ratelimit-remaining')).toBe('2');
    // The scoped requests took nothing from the account.
    expect((await client.get('/v1/stats', world.accountKey)).headers.get('x-ratelimit-remaining')).toBe('6');
  });

  it('answers 429 rate_limit_exceeded with Retry-After once the hour is spent, for every account key', async () => {
    await spend(world.accountKey, 1); // opens the window
    world.clock.advance(600);
    await spend(world.secondAccountKey, 7);
    for (const key of [world.accountKey, world.secondAccountKey]) {
      const reply = await client.get('/v1/people', key);
      expect(reply.status).toBe(429);
      expect(errorCode(reply)).toBe('rate_limit_exceeded');
      expect(reply.headers.get('x-ratelimit-remaining')).toBe('0');
      // The window opened with the first request, 600 s ago: 3000 s of it remain.
      expect(reply.headers.get('retry-after')).toBe('3000');
    }
    // A scoped key of the same account still has its own budget.
    expect((await client.get('/v1/stats', world.scopedKeys['beta.example'])).status).toBe(200);
  });

  it('lets requests through again when Retry-After has passed, and not a second before', async () => {
    await spend(world.accountKey, 8);
    const reply = await client.get('/v1/people', world.accountKey);
    expect(reply.status).toBe(429);
    const wait = Number(reply.headers.get('retry-after'));
    expect(wait).toBe(3600);
    world.clock.advance(wait - 1);
    expect((await client.get('/v1/people', world.accountKey)).status).toBe(429);
    world.clock.advance(1);
    const after = await client.get('/v1/people', world.accountKey);
    expect(after.status).toBe(200);
    expect(after.headers.get('x-ratelimit-remaining')).toBe('7');
  });

  it('refuses POST /v1/exports with 429 rate_limit_exceeded and Retry-After once the hour is spent, starting no job', async () => {
    await spend(world.accountKey, 8);
    world.clock.advance(60);
    const reply = await client.send('POST', '/v1/exports', world.accountKey, '{}', { 'content-type': 'application/json' });
    expect(reply.status).toBe(429);
    expect(errorCode(reply)).toBe('rate_limit_exceeded');
    expect(reply.headers.get('retry-after')).toBe('3540');
    expect(reply.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(await world.api.db.selectFrom('export_jobs').select('id').execute()).toEqual([]);
  });

  it('keeps a domain-scoped key’s budget with its site: a rotated key is still refused', async () => {
    const old = world.scopedKeys['beta.example']!;
    await spend(old, 3);
    expect((await client.get('/v1/stats', old)).status).toBe(429);
    const { keyId } = (await world.api.admin.describeKey(old))!;
    const rotated = await world.api.admin.rotateKey(keyId);
    expect((await client.get('/v1/stats', old)).status).toBe(403);
    const reply = await client.get('/v1/stats', rotated.key);
    expect(reply.status).toBe(429);
    expect(errorCode(reply)).toBe('rate_limit_exceeded');
    expect(reply.headers.get('x-ratelimit-limit')).toBe('3');
    expect(reply.headers.get('retry-after')).toBe('3600');
    // Another site's key, and the account, are untouched.
    expect((await client.get('/v1/stats', world.scopedKeys['gamma.example'])).headers.get('x-ratelimit-remaining')).toBe('2');
    expect((await client.get('/v1/stats', world.accountKey)).headers.get('x-ratelimit-remaining')).toBe('7');
  });

  it('carries rate-limit headers on responses that need no key, reporting the account limit untouched', async () => {
    for (const reply of [await client.get('/v1/health'), await client.get('/v1/people'), await client.get('/v1/nowhere')]) {
      expect(reply.headers.get('x-ratelimit-limit')).toBe('8');
      expect(reply.headers.get('x-ratelimit-remaining')).toBe('8');
    }
  });
});
