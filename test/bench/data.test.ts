import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createApi } from '../../adapters/node/index.ts';
import { benchDatabase, exportDatabase, type BenchDataOptions } from '../../bench/data.ts';
import { statsDatabase } from '../../bench/stats-data.ts';

const dir = mkdtempSync(join(tmpdir(), 'vi-bench-data-'));
const OPTIONS: BenchDataOptions = { seed: 7, people: 60, events: 3_000, journeys: [250, 1_200], progress: false, cacheDir: dir };

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('benchDatabase', () => {
  it('gives the journeys exactly their sizes and spreads the rest over other people', async () => {
    const data = await benchDatabase(OPTIONS);
    const db = new Database(data.path, { readonly: true });
    try {
      const count = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM events e JOIN people p ON p.pk = e.person_pk WHERE p.id = ?');
      expect(data.journeys.map((j) => count.get(j.personId)!.n)).toEqual([250, 1_200]);
      expect(db.prepare<[], { n: number }>('SELECT count(*) AS n FROM events').get()!.n).toBe(3_000);
      expect(db.prepare<[], { n: number }>('SELECT count(DISTINCT person_pk) AS n FROM events').get()!.n).toBeGreaterThan(2);
    } finally {
      db.close();
    }
  });

  it('reuses the built file, and the keys it reports still work', async () => {
    const first = await benchDatabase(OPTIONS);
    const built = statSync(first.path).mtimeMs;
    const again = await benchDatabase(OPTIONS);
    expect(again).toEqual(first);
    expect(statSync(again.path).mtimeMs).toBe(built);
    const api = await createApi({ database: again.path });
    try {
      const get = (key: string) => api.fetch(new Request(`http://x/v1/people/${again.journeys[1]!.personId}/events?limit=5`, { headers: { 'x-api-key': key } }));
      expect((await get(again.accountKey)).status).toBe(200);
      expect((await get(again.scopedKey.key)).status).toBe(200);
    } finally {
      await api.close();
    }
  });

  it('refuses journeys larger than the events asked for', async () => {
    await expect(benchDatabase({ ...OPTIONS, events: 1_000 })).rejects.toThrow(RangeError);
  });
});

describe('exportDatabase', () => {
  it('builds people without events in the cache directory it is given, then reuses the file', async () => {
    const options = { seed: 7, people: 50, cacheDir: dir, progress: false };
    const path = await exportDatabase(options);
    expect(path.startsWith(dir)).toBe(true);
    const db = new Database(path, { readonly: true });
    try {
      expect(db.prepare<[], { n: number }>('SELECT count(*) AS n FROM people').get()!.n).toBe(50);
      expect(db.prepare<[], { n: number }>('SELECT count(*) AS n FROM events').get()!.n).toBe(0);
    } finally {
      db.close();
    }
    const built = statSync(path).mtimeMs;
    expect(await exportDatabase(options)).toBe(path);
    expect(statSync(path).mtimeMs).toBe(built);
  });
});

describe('statsDatabase', () => {
  it('loads the people and exactly the events asked for through the admin surface, counters included, then reuses the file; its keys read stats', async () => {
    const options = { seed: 7, people: 80, events: 4_000, cacheDir: dir, progress: false };
    const data = await statsDatabase(options);
    const db = new Database(data.path, { readonly: true });
    try {
      expect(db.prepare<[], { n: number }>('SELECT count(*) AS n FROM people').get()!.n).toBe(80);
      expect(db.prepare<[], { n: number }>('SELECT count(*) AS n FROM events').get()!.n).toBe(4_000);
      // Loaded through the admin surface, the events are in the counters stats read.
      expect(db.prepare<[], { n: number }>('SELECT sum(events) AS n FROM event_counts WHERE span = 86400').get()!.n).toBe(4_000);
    } finally {
      db.close();
    }
    const built = statSync(data.path).mtimeMs;
    expect(await statsDatabase(options)).toEqual(data);
    expect(statSync(data.path).mtimeMs).toBe(built);
    const api = await createApi({ database: data.path });
    try {
      for (const key of [data.accountKey, ...data.scopedKeys.map((s) => s.key)]) {
        const res = await api.fetch(new Request('http://x/v1/stats?days=365', { headers: { 'x-api-key': key } }));
        expect(res.status).toBe(200);
      }
    } finally {
      await api.close();
    }
  });
});
