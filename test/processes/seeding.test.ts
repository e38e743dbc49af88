import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveDemoKey } from '../../scripts/demo-keys.ts';
import { runBin } from '../cli/bin.ts';
import { schemaUrl, spawnServe, stopAll, TestProcess } from '../support/processes.ts';

/**
 * A process seeding the demo dies (SIGKILL) while another start waits for it: the waiting one
 * takes over and the database ends with the same demo a clean seed gives.
 */

const PEOPLE = 150;
const DEMO = ['--seed', '7', '--people', String(PEOPLE), '--anchor', '2026-11-20T12:00:00Z'];
const TABLES = ['accounts', 'sites', 'companies', 'people', 'events', 'api_keys'] as const;

const dir = mkdtempSync(join(tmpdir(), 'vi-seed-takeover-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Rows per table, as a clean seed with the same parameters leaves them (a SQLite file made by `seed`). */
let reference: Record<string, number>;
beforeAll(async () => {
  const file = join(dir, 'reference.sqlite');
  const seeded = await runBin(['seed', '--db', file, ...DEMO]);
  expect(seeded.code, seeded.stderr).toBe(0);
  const db = new BetterSqlite3(file, { readonly: true });
  reference = Object.fromEntries(TABLES.map((t) => [t, Number((db.prepare(`select count(*) as n from ${t}`).get() as { n: number }).n)]));
  db.close();
}, 120_000);

interface Target {
  name: string;
  /** The `--db` value, and a count of a table's rows (0 while it does not exist yet). */
  open(): Promise<{ db: string; count(table: string, partial?: boolean): Promise<number>; close(): Promise<void> }>;
}

const sqliteFile: Target = {
  name: 'a SQLite file',
  open: async () => {
    const db = join(dir, 'demo.sqlite');
    return {
      db,
      count: async (table, partial = false) => {
        const path = partial ? `${db}.seeding` : db;
        if (!existsSync(path)) return 0;
        const file = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
        try {
          return Number((file.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n);
        } catch {
          return 0;
        } finally {
          file.close();
        }
      },
      close: async () => undefined,
    };
  },
};

const serverUrl = process.env.VI_TEST_POSTGRES_URL;
const postgresSchema = (url: string): Target => ({
  name: 'PostgreSQL',
  open: async () => {
    const target = await schemaUrl(url);
    const pool = new pg.Pool({ connectionString: url, options: `-c search_path=${target.schema}`, max: 1 });
    return {
      db: target.url,
      count: async (table) => Number((await pool.query(`select count(*) as n from ${table}`).catch(() => ({ rows: [{ n: 0 }] }))).rows[0].n),
      close: () => pool.end(),
    };
  },
});

describe.each([sqliteFile, ...(serverUrl ? [postgresSchema(serverUrl)] : [])])('a seeder killed while another start waits for it: $name', (target) => {
  const processes: TestProcess[] = [];
  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGKILL')));
  });

  it('is taken over: the waiting process seeds, and the database holds what a clean seed gives, with the same keys', async () => {
    const { db, count, close } = await target.open();
    try {
      const first = TestProcess.spawn('seeder', [process.execPath, 'dist/scripts/cli.js', 'serve', '--port', '0', '--db', db, ...DEMO]);
      processes.push(first);
      // Frozen mid-seed: its people are in, its events are loading.
      const deadline = Date.now() + 60_000;
      while ((await count('people', true)) === 0) {
        if (!first.running || Date.now() > deadline) throw new Error(`the seed was not caught under way:\n${first.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      first.child.kill('SIGSTOP');
      expect(first.output()).not.toMatch(/Seeded/);

      const taker = spawnServe('taker', ['--db', db, ...DEMO], { dir });
      processes.push(taker.process);
      // The second start waits for the frozen seeder; then the seeder dies.
      await taker.process.waitFor(/waiting for it/);
      first.child.kill('SIGKILL');
      const second = await taker.ready;
      expect(second.process.output()).toMatch(/waiting for it/);
      expect(second.process.output()).toMatch(new RegExp(`Seeded 9 sites, \\d+ companies, ${PEOPLE} people`));
      for (const table of TABLES) expect(await count(table), table).toBe(reference[table]);
      expect(second.keys.accountKey).toBe(deriveDemoKey(7, 'account'));
      expect(second.keys.scopedKeys.map((k) => k.key)).toEqual(second.keys.scopedKeys.map((k) => deriveDemoKey(7, `site ${k.domain}`)));
      await stopAll([second]);
      if (target === sqliteFile) expect(readdirSync(dir).filter((f) => f.startsWith('demo.sqlite.'))).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);
});
