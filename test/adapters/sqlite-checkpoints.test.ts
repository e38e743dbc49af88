import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { startCheckpointer } from '../../adapters/node/checkpointer.ts';
import { openDatabase } from '../../adapters/node/index.ts';
import { openSqlite, type BackgroundCheckpoints } from '../../adapters/shared/sqlite-shim.ts';
import type { Database } from '../../core/index.ts';

/** Resolves once `check` holds, looking every 10 ms; fails after `ms`. */
async function eventually(check: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('the condition never held');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The nice value of each thread of this process, by thread id (Linux's /proc; empty elsewhere). */
function threadNices(): Map<string, number> {
  const nices = new Map<string, number>();
  if (process.platform !== 'linux') return nices;
  for (const id of readdirSync('/proc/self/task')) {
    try {
      // The fields after the command's closing parenthesis: nice is the 19th of the line, the 17th of these.
      const stat = readFileSync(`/proc/self/task/${id}/stat`, 'utf8');
      nices.set(id, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
    } catch {
      // A thread that ended while being listed.
    }
  }
  return nices;
}

/** About 1 MB of rows (~250 pages): past SQLite's inline threshold of 100, short of the 1,000 the serving thread waits for beside a checkpointer thread. */
async function writeAMegabyte(db: Kysely<Database>): Promise<void> {
  await sql`create table filler (body text not null)`.execute(db);
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < 256; i++) await sql`insert into filler (body) values (${'x'.repeat(4000)})`.execute(trx);
  });
}

/** Opens `path` as the adapters do, with `background` standing in for a checkpointer thread. */
function openWith(path: string, background: BackgroundCheckpoints): Kysely<Database> {
  return openSqlite(path, (file) => {
    const native = new BetterSqlite3(file);
    return { prepare: (text) => native.prepare(text), exec: (text) => void native.exec(text), close: () => native.close(), returnsRows: (s) => s.reader };
  }, background);
}

describe('SQLite files under the Node adapter', () => {
  let dir: string | undefined;
  let db: Kysely<Database> | undefined;
  afterEach(async () => {
    await db?.destroy();
    db = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('leave the WAL to the background checkpointer: a commit on the serving thread copies nothing into the file', async () => {
    dir = mkdtempSync(join(tmpdir(), 'vi-checkpoints-'));
    const path = join(dir, 'api.sqlite');
    let stopped = false;
    db = openWith(path, () => () => (stopped = true));
    const before = statSync(path).size;
    await writeAMegabyte(db);
    expect(statSync(path).size).toBe(before);
    expect(statSync(`${path}-wal`).size).toBeGreaterThan(1_000_000);
    await db.destroy();
    db = undefined;
    expect(stopped).toBe(true);
  });

  it('keep the WAL short under a steady stream of small commits, which the checkpointer thread alone never lets SQLite start over', async () => {
    dir = mkdtempSync(join(tmpdir(), 'vi-checkpoints-'));
    const path = join(dir, 'api.sqlite');
    db = openDatabase(path);
    await sql`create table counter (id integer primary key, n integer not null)`.execute(db);
    await sql`insert into counter (id, n) values (1, 0)`.execute(db);
    // One page a commit, as a rate-limit count writes: the WAL reached the old threshold of 4,000 pages.
    for (let i = 0; i < 6000; i++) await sql`update counter set n = n + 1 where id = 1`.execute(db);
    // The file keeps the size of the longest the WAL grew: the 1,000-page threshold, and the
    // commits made while the thread held the checkpoint lock (the serving thread's own checkpoint
    // is skipped then, and tried again at the next commit), more on a busy machine where the
    // thread waits for a core; without the serving thread's checkpoints it passes 4,000 pages.
    const frame = 4096 + 24;
    expect(statSync(`${path}-wal`).size).toBeLessThan(32 + 3500 * frame);
  });

  it('checkpoint inline again, every 100 pages, when the background checkpointer fails', async () => {
    dir = mkdtempSync(join(tmpdir(), 'vi-checkpoints-'));
    const path = join(dir, 'api.sqlite');
    db = openWith(path, (_path, onFailure) => {
      onFailure();
      return () => undefined;
    });
    const before = statSync(path).size;
    await writeAMegabyte(db);
    expect(statSync(path).size).toBeGreaterThan(before + 500_000);
  });

  it('have their WAL copied into the database file by the checkpointer thread, while the writer never checkpoints', async () => {
    dir = mkdtempSync(join(tmpdir(), 'vi-checkpoints-'));
    const path = join(dir, 'api.sqlite');
    const writer = new BetterSqlite3(path);
    writer.exec('pragma journal_mode = wal; pragma wal_autocheckpoint = 0; create table filler (body text not null)');
    const before = statSync(path).size;
    const insert = writer.prepare('insert into filler (body) values (?)');
    writer.transaction(() => {
      for (let i = 0; i < 256; i++) insert.run('x'.repeat(4000));
    })();
    expect(statSync(path).size).toBe(before);
    const stop = startCheckpointer(path, () => undefined);
    try {
      await eventually(() => statSync(path).size > before + 1_000_000);
    } finally {
      stop();
      writer.close();
    }
  });

  it('give way on a busy core: on Linux the checkpointer thread runs 10 nicer than the thread that started it, which keeps its own', async () => {
    dir = mkdtempSync(join(tmpdir(), 'vi-checkpoints-'));
    const path = join(dir, 'api.sqlite');
    new BetterSqlite3(path).close();
    const mine = getPriority(0);
    const before = new Set(threadNices().keys());
    const stop = startCheckpointer(path, () => undefined);
    try {
      if (process.platform === 'linux') {
        await eventually(() => [...threadNices()].some(([id, nice]) => !before.has(id) && nice === Math.min(19, mine + 10)));
      }
      // Neither this thread nor the process's main thread (its id is the pid) changed.
      expect(getPriority(0)).toBe(mine);
      expect(getPriority(process.pid)).toBe(mine);
    } finally {
      stop();
    }
  });

  it('report a checkpointer thread that cannot open the file, and stopping it then does not wait for the thread', async () => {
    dir = mkdtempSync(join(tmpdir(), 'vi-checkpoints-'));
    let failed = false;
    const stop = startCheckpointer(join(dir, 'missing.sqlite'), () => (failed = true));
    await eventually(() => failed);
    const started = Date.now();
    stop();
    // The thread marked itself closed as it failed: no wait for the 10 s a closing thread gets.
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('report a checkpoint that throws on the checkpointer thread, and stopping it then does not wait for the thread', async () => {
    dir = mkdtempSync(join(tmpdir(), 'vi-checkpoints-'));
    // A file SQLite opens (it reads nothing until asked) but whose first checkpoint fails: not a database.
    const path = join(dir, 'not-a-database.sqlite');
    writeFileSync(path, 'x'.repeat(8192));
    let failed = false;
    const stop = startCheckpointer(path, () => (failed = true));
    await eventually(() => failed);
    const started = Date.now();
    stop();
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('are whole when closing returns: the checkpointer closes first, and the last connection out removes the WAL', async () => {
    dir = mkdtempSync(join(tmpdir(), 'vi-checkpoints-'));
    const path = join(dir, 'api.sqlite');
    db = openDatabase(path);
    await writeAMegabyte(db);
    expect(existsSync(`${path}-wal`)).toBe(true);
    await db.destroy();
    db = undefined;
    expect(existsSync(`${path}-wal`)).toBe(false);
    // Moved into place at once, as the seeder moves the file it built: every row goes with it.
    const moved = join(dir, 'moved.sqlite');
    renameSync(path, moved);
    const reader = new BetterSqlite3(moved, { readonly: true });
    expect(reader.prepare('select count(*) from filler').pluck().get()).toBe(256);
    reader.close();
  });
});
