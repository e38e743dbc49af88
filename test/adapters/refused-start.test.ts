import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createApi, ManualClock, openDatabase, type NodeApiOptions } from '../../adapters/node/index.ts';
import { createWorld, NOW } from '../support/world.ts';
import { createApi as createCoreApi } from '../../core/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'vi-refused-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every option the API refuses at start, with what the refusal names. */
const REFUSED: [string, Omit<NodeApiOptions, 'database'>, RegExp][] = [
  ['an admin token under 16 characters', { admin: { token: 'short' } }, /admin\.token/],
  ['an admin token that is no string', { admin: { token: 1234567890123456789 as unknown as string } }, /admin\.token/],
  ['a CORS origin no browser sends', { cors: { origins: ['app.example'] } }, /CORS origin "app\.example"/],
  ['CORS origins that are no list', { cors: { origins: 'https://app.example' as unknown as string[] } }, /cors\.origins/],
  ['an hourly limit of 0', { rateLimits: { accountPerHour: 0 } }, /rateLimits\.accountPerHour/],
  ['an hourly limit that is no whole number', { rateLimits: { scopedKeyPerHour: 2.5 } }, /rateLimits\.scopedKeyPerHour/],
  ['an hourly limit that is no number', { rateLimits: { accountPerHour: '100' as unknown as number } }, /rateLimits\.accountPerHour/],
  ['a read database beside SQLite, which has no read replicas', { readDatabase: 'postgres://postgres@127.0.0.1:1/vi' }, /^readDatabase is for PostgreSQL: database is SQLite/],
  ['a read wait below 0', { readWait: { writeMs: -1 } }, /readWait\.writeMs/],
  ['a read wait that is no whole number', { readWait: { startMs: 1.5 } }, /readWait\.startMs/],
];

describe.each([
  ['a SQLite file', () => join(dir, `${Math.random().toString(36).slice(2)}.sqlite`)],
  ['SQLite :memory:', () => ':memory:'],
])('A refused start on %s', (_name, database) => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it.each(REFUSED)('refuses %s and leaves nothing running', async (_what, options, message) => {
    const errors: unknown[] = [];
    const path = database();
    await expect(createApi({ ...options, database: path, onError: (error) => errors.push(error) })).rejects.toThrow(message);
    // Nothing polls in the background, and a minute of it shows no work failing on a closed database.
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(errors).toEqual([]);
    // The options were refused before the database was opened: no file was created.
    if (path !== ':memory:') expect(existsSync(path)).toBe(false);
  });
});

describe('A refused start on a database the host opened', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('starts no work on it and leaves it open', async () => {
    const db = openDatabase(':memory:');
    const errors: unknown[] = [];
    await expect(createApi({ database: db, admin: { token: 'short' }, onError: (error) => errors.push(error) })).rejects.toThrow(/admin\.token/);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(errors).toEqual([]);
    // Not migrated either: the host's database is as it was.
    expect(await db.introspection.getTables()).toEqual([]);
    await db.destroy();
  });
});

describe('A read database that cannot be one', () => {
  it('is refused as a SQLite file beside a PostgreSQL database, before connecting to either', async () => {
    const path = join(dir, 'replica.sqlite');
    // Nothing listens on port 1: a connection attempt would fail with another message.
    await expect(createApi({ database: 'postgres://postgres@127.0.0.1:1/vi', readDatabase: path })).rejects.toThrow(/^readDatabase must be a postgres:\/\/ URL, a pg pool or a Kysely instance over PostgreSQL/);
    expect(existsSync(path)).toBe(false);
  });

  it('is refused as a Kysely instance over SQLite, and beside one, by the core too', async () => {
    const db = openDatabase(':memory:');
    await expect(createApi({ database: db, readDatabase: db })).rejects.toThrow(/^readDatabase is for PostgreSQL: database is SQLite/);
    await expect(createCoreApi({ db, readDb: db })).rejects.toThrow(/^readDb is for PostgreSQL: db is SQLite/);
    // Refused before migrating: the host's database is as it was.
    expect(await db.introspection.getTables()).toEqual([]);
    await db.destroy();
  });
});

describe('A start that fails after it resumed an export', () => {
  it('stops the export before refusing, leaving the job for the next start', async () => {
    const database = join(dir, 'failing-start.sqlite');
    const world = await createWorld({ database, exports: { pace: () => new Promise(() => undefined) } });
    const started = await world.api.fetch(new Request('http://api.test/v1/exports', { method: 'POST', headers: { 'x-api-key': world.accountKey } }));
    const { jobId } = await started.json();
    // The process "dies" with the job processing.
    await world.api.db.destroy();

    // The next start claims the job, then fails looking for finished jobs' leftovers.
    let queries = 0;
    const db = openDatabase(database).withPlugin({
      transformQuery: ({ node }) => {
        queries++;
        const from = JSON.stringify((node as { from?: unknown }).from ?? '');
        if (node.kind === 'SelectQueryNode' && from.includes('"export_jobs"') && from.includes('"j"')) throw new Error('leftovers unreadable');
        return node;
      },
      transformResult: async ({ result }) => result,
    });
    const errors: unknown[] = [];
    await expect(createApi({ database: db, clock: new ManualClock(NOW + 60_000), exports: { pace: async () => undefined }, onError: (error) => errors.push(error) })).rejects.toThrow('leftovers unreadable');
    const atRefusal = queries;
    // Whatever was left running would carry on now, its pace resolving at once.
    await new Promise((resolve) => setImmediate(resolve));
    expect(queries).toBe(atRefusal);
    expect(errors).toEqual([]);
    const job = await db.selectFrom('export_jobs').select('status').where('id', '=', jobId).executeTakeFirstOrThrow();
    expect(job.status).toBe('processing');
    await db.destroy();
  });
});
