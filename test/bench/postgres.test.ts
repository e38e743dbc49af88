import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchDatabase } from '../../bench/data.ts';
import { dropDatabases, postgresCopy } from '../../bench/postgres-data.ts';
import type { CaseResult, SuiteResult } from '../../bench/results.ts';
import { DEFAULT_SUITES, runBench, type RunOutcome } from '../../bench/run.ts';

// `npm run bench -- --postgres URL` in its tiny configuration: the paging and export suites on a
// real server (VI_TEST_POSTGRES_URL), every database under a prefix of this file's
// own, dropped after. Figures are never asserted, only that each suite measured what it says.
const serverUrl = process.env.VI_TEST_POSTGRES_URL;
const dir = mkdtempSync(join(tmpdir(), 'vi-bench-pg-'));
const prefix = `vi_test_bench_${randomBytes(3).toString('hex')}_`;
// The tiny data set (as CI's --tiny), built in this file's own cache directory.
const SMALL = { seed: 42, people: 200, events: 20_000, journeys: [300, 2_000] };

afterAll(async () => {
  if (serverUrl) await dropDatabases(serverUrl, prefix);
  rmSync(dir, { recursive: true, force: true });
});

const suite = (outcome: RunOutcome, name: string): SuiteResult => outcome.run.suites.find((s) => s.suite === name)!;

describe('npm run bench -- --postgres URL: what it refuses before building anything', () => {
  it('runs the paging and export suites on PostgreSQL by default', () => {
    expect(DEFAULT_SUITES.postgres).toEqual(['journey-paging', 'people-paging', 'export']);
  });

  it('refuses a suite that runs on SQLite only, naming the ones that run on PostgreSQL', async () => {
    const run = runBench({ tiny: true, ...SMALL, out: join(dir, 'refused'), cacheDir: join(dir, 'cache'), postgres: 'postgres://nobody@127.0.0.1:1/none', suites: ['http'], log: () => {} });
    await expect(run).rejects.toThrow('suite http runs on SQLite only; on PostgreSQL: journey-paging, people-paging, export');
  });

  it('stops in one line when the server does not answer', async () => {
    const run = runBench({ tiny: true, ...SMALL, out: join(dir, 'unreachable'), cacheDir: join(dir, 'cache'), postgres: 'postgres://nobody@127.0.0.1:1/none', log: () => {} });
    await expect(run).rejects.toThrow(/^cannot connect to PostgreSQL for the benchmark \(postgres:\/\/nobody@127\.0\.0\.1:1\/none\)/);
  });
});

if (serverUrl !== undefined) describe('npm run bench -- --tiny --postgres URL', () => {
  let outcome: RunOutcome;

  beforeAll(async () => {
    outcome = await runBench({ tiny: true, ...SMALL, out: join(dir, 'results'), cacheDir: join(dir, 'cache'), postgres: serverUrl, postgresPrefix: prefix, log: () => {} });
  }, 240_000);

  it('runs every PostgreSQL suite without failing', () => {
    expect(outcome.failed).toEqual([]);
    expect(outcome.run.suites.map((s) => s.suite)).toEqual(DEFAULT_SUITES.postgres);
    expect(outcome.run.config.backend).toBe('postgres');
  });

  it('measures journey and people pages through api.fetch on PostgreSQL beside their raw-pg floors', () => {
    for (const name of ['journey-paging', 'people-paging']) {
      const result = suite(outcome, name);
      expect(result.title).toContain('PostgreSQL');
      for (const role of ['ours', 'floor'] as const) {
        const cases = result.cases.filter((c) => c.role === role);
        expect(cases.length).toBeGreaterThan(0);
        for (const c of cases) expect(c.medianMs).toBeGreaterThan(0);
      }
    }
    // A smoke run judges no target, on PostgreSQL as on SQLite.
    expect(outcome.run.suites.flatMap((s) => s.targets)).toEqual([]);
  });

  it('exports the same rows ourselves, through a pg cursor and through COPY', () => {
    const result = suite(outcome, 'export');
    const rows = (role: CaseResult['role']) => result.cases.filter((c) => c.role === role).map((c) => c.params!.rows);
    expect(rows('floor')).toEqual([5_000]);
    expect(rows('peer')).toEqual([5_000]);
    expect(rows('ours')).toEqual([5_000]);
  });

  it('copies the SQLite bench data row for row, keys and identity sequences included, and reuses the copy', async () => {
    const data = await benchDatabase({ ...SMALL, cacheDir: join(dir, 'cache'), progress: false });
    const target = { url: serverUrl!, prefix };
    const url = await postgresCopy(target, data.path, { progress: false });
    const sqlite = new BetterSqlite3(data.path, { readonly: true });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      for (const table of ['people', 'events', 'sites', 'companies', 'api_keys']) {
        const expected = sqlite.prepare<[], { n: number; pks: number }>(`select count(*) as n, sum(pk) as pks from ${table}`).get()!;
        const { rows } = await client.query(`select count(*)::int as n, sum(pk)::int as pks from ${table}`);
        expect(rows[0], table).toEqual(expected);
      }
      const { rows: next } = await client.query(`select nextval(pg_get_serial_sequence('events', 'pk'))::int as pk, (select max(pk) from events)::int as max`);
      expect(next[0].pk).toBeGreaterThan(next[0].max);
      const { rows: oid } = await client.query('select oid from pg_database where datname = current_database()');
      // A second call finds the database and copies nothing.
      expect(await postgresCopy(target, data.path, { progress: false })).toBe(url);
      const { rows: again } = await client.query('select oid from pg_database where datname = current_database()');
      expect(again).toEqual(oid);
    } finally {
      sqlite.close();
      await client.end();
    }
  });
});
