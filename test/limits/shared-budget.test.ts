import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createApi, type Api } from '../../adapters/node/index.ts';
import { POSTGRES_BACKENDS } from '../support/backends.ts';
import { createWorld, type World } from '../support/world.ts';

const LIMIT = 5;
const dir = mkdtempSync(join(tmpdir(), 'vi-limits-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** A GET of the account's stats through one API, in-process. */
const stats = (api: Api, key: string) => api.fetch(new Request('http://api.test/v1/stats', { headers: { 'x-api-key': key } }));

/** A second API process on the world's database: a new `createApi`, sharing only the database and the clock. */
const secondApi = (world: World, database: Parameters<typeof createApi>[0]['database']) =>
  createApi({ database, clock: world.clock, rateLimits: { accountPerHour: LIMIT }, onError: () => undefined });

/** Sends `n` requests at once, alternating between the APIs, and counts the statuses. */
async function burst(apis: Api[], key: string, n: number): Promise<Record<number, number>> {
  const replies = await Promise.all(Array.from({ length: n }, (_, i) => stats(apis[i % apis.length]!, key)));
  const statuses: Record<number, number> = {};
  for (const reply of replies) statuses[reply.status] = (statuses[reply.status] ?? 0) + 1;
  return statuses;
}

/**
 * `api` last saw room in the budget, then `other` spends the rest: `api`'s next GETs (one that
 * would be a 404, one a 200) must still come back 429, with nothing of what they would read.
 */
async function expectRefusedAfterOtherSpent(api: Api, other: Api, key: string): Promise<void> {
  expect((await stats(api, key)).headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - 1));
  expect(await burst([other], key, LIMIT - 1)).toEqual({ 200: LIMIT - 1 });
  for (const path of ['/v1/people/per_nobody', '/v1/stats']) {
    const reply = await api.fetch(new Request(`http://api.test${path}`, { headers: { 'x-api-key': key } }));
    expect(reply.status, path).toBe(429);
    expect(reply.headers.get('retry-after'), path).toMatch(/^\d+$/);
    expect(((await reply.json()) as { error: { code: string } }).error.code, path).toBe('rate_limit_exceeded');
  }
}

/** A world on a new SQLite file and a second API on it whose internal errors land in `errors`. */
async function worldWithLoggingApi(name: string) {
  const file = join(dir, `${name}-${files++}.db`);
  const world = await createWorld({ database: file, rateLimits: { accountPerHour: LIMIT } });
  const errors: unknown[] = [];
  const api = await createApi({ database: file, clock: world.clock, rateLimits: { accountPerHour: LIMIT }, onError: (error) => errors.push(error) });
  return { world, api, errors, close: async () => (await api.close(), await world.close()) };
}

/** Renames the people table under every API of the world's file: any read of people fails from then on. */
const losePeople = (world: World) => sql`alter table people rename to people_gone`.execute(world.api.db);

/** A GET of one person through one API, in-process. */
const person = (api: Api, key: string) => api.fetch(new Request('http://api.test/v1/people/per_001', { headers: { 'x-api-key': key } }));

describe('rate limits on a SQLite file', () => {
  it('survive a restart: a new API on the same file carries on counting the window', async () => {
    const file = join(dir, `restart-${files++}.db`);
    const world = await createWorld({ database: file, rateLimits: { accountPerHour: LIMIT } });
    expect((await stats(world.api, world.accountKey)).headers.get('x-ratelimit-remaining')).toBe('4');
    expect((await stats(world.api, world.accountKey)).headers.get('x-ratelimit-remaining')).toBe('3');
    await world.close();
    world.clock.advance(600);
    const restarted = await secondApi(world, file);
    try {
      const reply = await stats(restarted, world.accountKey);
      expect(reply.headers.get('x-ratelimit-remaining')).toBe('2');
      for (let i = 0; i < 2; i++) expect((await stats(restarted, world.accountKey)).status).toBe(200);
      const refused = await stats(restarted, world.accountKey);
      expect(refused.status).toBe(429);
      // The window opened before the restart, 600 s ago.
      expect(refused.headers.get('retry-after')).toBe('3000');
    } finally {
      await restarted.close();
    }
  });

  it('lose no place when an API stops without closing: another API on the file carries on from the requests served', async () => {
    const file = join(dir, `unclosed-${files++}.db`);
    const world = await createWorld({ database: file, rateLimits: { accountPerHour: 1000 } });
    await stats(world.api, world.accountKey);
    const together = await Promise.all(Array.from({ length: 5 }, () => stats(world.api, world.accountKey)));
    expect(together.map((r) => r.headers.get('x-ratelimit-remaining')).sort().reverse()).toEqual(['998', '997', '996', '995', '994']);
    // The first API is never closed (as a process killed): six served, the next request is the seventh place.
    const other = await createApi({ database: file, clock: world.clock, rateLimits: { accountPerHour: 1000 }, onError: () => undefined });
    try {
      expect((await stats(other, world.accountKey)).headers.get('x-ratelimit-remaining')).toBe('993');
    } finally {
      await other.close();
      await world.close();
    }
  });

  it('are shared by two APIs on one file: concurrent requests over both get exactly the limit', async () => {
    const file = join(dir, `shared-${files++}.db`);
    const world = await createWorld({ database: file, rateLimits: { accountPerHour: LIMIT } });
    const other = await secondApi(world, file);
    try {
      expect(await burst([world.api, other], world.accountKey, 14)).toEqual({ 200: LIMIT, 429: 14 - LIMIT });
    } finally {
      await other.close();
      await world.close();
    }
  });

  it('refuse a GET of an API that last saw room when another API spent the budget since, whatever the GET would have answered', async () => {
    const file = join(dir, `spent-${files++}.db`);
    const world = await createWorld({ database: file, rateLimits: { accountPerHour: LIMIT } });
    const other = await secondApi(world, file);
    try {
      await expectRefusedAfterOtherSpent(world.api, other, world.accountKey);
    } finally {
      await other.close();
      await world.close();
    }
  });

  it('make an API read nothing for a GET its count refuses, even when it last saw room in the budget', async () => {
    const { world, api, errors, close } = await worldWithLoggingApi('refused');
    try {
      expect((await stats(api, world.accountKey)).status).toBe(200);
      expect(await burst([world.api], world.accountKey, LIMIT - 1)).toEqual({ 200: LIMIT - 1 });
      // Any read of people would now fail, and be logged as an internal error.
      await losePeople(world);
      expect((await person(api, world.accountKey)).status).toBe(429);
      // A read started alongside the count would have failed by the time a whole request more is answered.
      expect((await stats(api, world.accountKey)).status).toBe(429);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it('are cleared for every API by the admin reset', async () => {
    const file = join(dir, `reset-${files++}.db`);
    const world = await createWorld({ database: file, rateLimits: { accountPerHour: LIMIT } });
    await world.api.saveBaseline();
    const other = await secondApi(world, file);
    try {
      await burst([world.api, other], world.accountKey, LIMIT + 1);
      expect((await stats(other, world.accountKey)).status).toBe(429);
      await world.api.reset();
      expect((await stats(other, world.accountKey)).headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - 1));
      expect((await stats(world.api, world.accountKey)).headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - 2));
    } finally {
      await other.close();
      await world.close();
    }
  });
});

describe.each(POSTGRES_BACKENDS)('rate limits on one Postgres schema ($name)', (backend) => {
  it('are shared by two APIs: concurrent requests over both get exactly the limit, and the reset clears them', async () => {
    const world = await createWorld({ backend, rateLimits: { accountPerHour: LIMIT } });
    await world.api.saveBaseline();
    const other = await secondApi(world, world.api.db);
    try {
      expect(await burst([world.api, other], world.accountKey, 14)).toEqual({ 200: LIMIT, 429: 14 - LIMIT });
      await world.api.reset();
      expect((await stats(other, world.accountKey)).headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - 1));
    } finally {
      await other.close();
      await world.close();
    }
  });

  it('refuse a GET of an API that last saw room when another API spent the budget since', async () => {
    const world = await createWorld({ backend, rateLimits: { accountPerHour: LIMIT } });
    const other = await secondApi(world, world.api.db);
    try {
      await expectRefusedAfterOtherSpent(world.api, other, world.accountKey);
    } finally {
      await other.close();
      await world.close();
    }
  });
});
