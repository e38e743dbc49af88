import { describe, expect, it } from 'vitest';
import { errorCode } from '../support/client.ts';
import { TARGETS, serveWorld, type Client } from '../support/targets.ts';
import type { World } from '../support/world.ts';

describe.each(TARGETS)('hourly rate limits ($name)', (target) => {
  let world: World;
  let client: Client;
  serveWorld(target, { rateLimits: { accountPerHour: 8, scopedKeyPerHour: 3 } }, (w, c) => ((world = w), (client = c)));

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
    expect(reply.headers.get('x-ratelimit-remaining')).toBe('4');
  });

  it('gives each domain-scoped key its own budget, apart from the account', async () => {
    const reply = await client.get('/v1/stats', world.scopedKeys['beta.example']);
    expect(reply.headers.get('x-ratelimit-limit')).toBe('3');
    expect(reply.headers.get('x-ratelimit-remaining')).toBe('2');
    const other = await client.get('/v1/stats', world.scopedKeys['gamma.example']);
    expect(other.headers.get('x-ratelimit-remaining')).toBe('2');
    expect((await client.get('/v1/stats', world.accountKey)).headers.get('x-ratelimit-remaining')).toBe('3');
  });

  it('answers 429 rate_limit_exceeded with Retry-After once the hour is spent, for every account key', async () => {
    world.clock.advance(600);
    for (let i = 0; i < 3; i++) expect((await client.get('/v1/stats', world.accountKey)).status).toBe(200);
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
    const reply = await client.get('/v1/people', world.accountKey);
    const wait = Number(reply.headers.get('retry-after'));
    world.clock.advance(wait - 1);
    expect((await client.get('/v1/people', world.accountKey)).status).toBe(429);
    world.clock.advance(1);
    const after = await client.get('/v1/people', world.accountKey);
    expect(after.status).toBe(200);
    expect(after.headers.get('x-ratelimit-remaining')).toBe('7');
  });

  it('carries rate-limit headers on responses that need no key', async () => {
    for (const reply of [await client.get('/v1/health'), await client.get('/v1/people'), await client.get('/v1/nowhere')]) {
      expect(reply.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
      expect(reply.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    }
  });
});
