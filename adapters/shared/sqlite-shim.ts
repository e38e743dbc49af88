import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';
import type { Database } from '../../core/index.ts';

/** What every runtime's SQLite statements offer (better-sqlite3, bun:sqlite, node:sqlite): positional parameters, spread. */
export interface NativeStatement {
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(...params: unknown[]): Iterable<unknown>;
  /** Frees the statement now (Bun); without it, closing leaves the connection open until GC. */
  finalize?(): void;
}

/** A runtime's SQLite connection, and the little that differs between them. */
export interface NativeDatabase<S extends NativeStatement> {
  prepare(sql: string): S;
  close(): void;
  /** Whether a statement returns rows (Kysely reads rows only from those). */
  returnsRows(statement: S): boolean;
}

/** How many prepared statements a connection keeps; the API's own queries take a few dozen shapes. */
const STATEMENT_CACHE_SIZE = 200;

/**
 * Gives a runtime's SQLite the shape Kysely's own SqliteDialect drives, so every query, migration
 * and export runs unchanged on each runtime. Kysely prepares a statement for every query it runs;
 * here each SQL text is prepared once and kept, because preparing costs as much as running a cheap
 * query. Booleans bind as 1/0.
 *
 * A query that finds its statement changes nothing in the cache, so a hit allocates nothing: moving
 * the entry to the back of a Map on every hit (a plain LRU) made V8 rebuild the Map's table every
 * few hundred queries, and those tables lived long enough to fill the old generation with garbage
 * (~60 bytes a query, half an export's memory growth). When full, the cache evicts the oldest
 * statement not used since it was last passed over (a second chance).
 */
export function kyselyOver<S extends NativeStatement>(native: NativeDatabase<S>): Kysely<Database> {
  const cache = new Map<string, CachedStatement<S>>();
  const prepared = (sql: string): CachedStatement<S> => {
    const hit = cache.get(sql);
    if (hit) {
      hit.used = true;
      return hit;
    }
    if (cache.size >= STATEMENT_CACHE_SIZE) evictOne(cache);
    const text = plannedWithoutValues(sql);
    const statement = native.prepare(text);
    const entry: CachedStatement<S> = {
      native: statement,
      used: false,
      kysely: {
        reader: native.returnsRows(statement),
        // all() and run() finish before they return, so one shared statement can never be mid-use.
        all: (params) => statement.all(...bind(params)),
        run: (params) => statement.run(...bind(params)),
        // An iteration stays open across awaits, while other queries may run the same SQL: it gets its own statement.
        iterate: (params) => iterateOnce(native.prepare(text), bind(params)),
      },
    };
    cache.set(sql, entry);
    return entry;
  };
  const database: SqliteDatabase = {
    close() {
      // An unfinalized statement keeps Bun's file open after close(), its WAL not checkpointed.
      for (const entry of cache.values()) entry.native.finalize?.();
      cache.clear();
      native.close();
    },
    // Kysely begins transactions with a plain (deferred) BEGIN, which takes the write lock only at
    // the first write. Every transaction here writes, and one that read first fails at once with
    // SQLITE_BUSY (no busy wait) when another process wrote in between. Taking the write lock at
    // BEGIN makes it wait its turn (busy_timeout) instead: processes sharing a file take turns.
    prepare: (sql: string): SqliteStatement => prepared(sql === 'begin' ? 'begin immediate' : sql).kysely,
  };
  return new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
}

/** A bare parameter after LIMIT or LIKE, as Kysely and the stores' SQL templates write it. */
const PLANNED_WITH_ITS_VALUE = / (limit|like) \?/g;

/**
 * The SQL as prepared: `limit +?` and `like +?` for a bare `limit ?` and `like ?`. SQLite reads
 * the value bound to such a parameter when it plans the statement, so binding it again, as every
 * run does, expires the statement and the next run prepares it anew: a journey page's statement
 * took 96 µs a run instead of 67, a scoped key's people page 790 µs instead of 480, the stats of a
 * scoped key 72 µs instead of 41 (SQLite 3.53, each statement alone; bound once, each ran as fast
 * as with `+?`). `+?` is an expression SQLite plans without its value: the same answers from a
 * statement prepared once.
 */
export function plannedWithoutValues(sql: string): string {
  return sql.replace(PLANNED_WITH_ITS_VALUE, ' $1 +?');
}

/** A prepared statement kept for its SQL text, as Kysely drives it. */
interface CachedStatement<S extends NativeStatement> {
  native: S;
  kysely: SqliteStatement;
  /** Used since the eviction last passed over it. */
  used: boolean;
}

/** Frees the oldest statement not used since it was last passed over; used ones go to the back, unmarked. */
function evictOne<S extends NativeStatement>(cache: Map<string, CachedStatement<S>>): void {
  for (const [sql, entry] of cache) {
    cache.delete(sql);
    if (entry.used) {
      entry.used = false;
      cache.set(sql, entry);
      continue;
    }
    entry.native.finalize?.();
    return;
  }
}

/** Parameters as SQLite binds them: booleans as 1/0 (node:sqlite binds none); others as given, without a copy. */
function bind(params: ReadonlyArray<unknown>): ReadonlyArray<unknown> {
  for (const p of params) if (typeof p === 'boolean') return params.map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v));
  return params;
}

/** Iterates a statement of its own and frees it when the iteration ends, however it ends. */
function* iterateOnce(statement: NativeStatement, params: ReadonlyArray<unknown>): IterableIterator<unknown> {
  try {
    yield* statement.iterate(...params);
  } finally {
    statement.finalize?.();
  }
}

/** How much of a file SQLite reads through a memory map: its most (SQLite caps it just under 2 GiB). */
export const MAP_BYTES = 2 ** 31;

/** The serving connection checkpoints the WAL itself every 100 pages, with no thread to do it. */
const INLINE_CHECKPOINTS = 'PRAGMA wal_autocheckpoint = 100';

/**
 * The pragmas every file database gets: WAL (readers never block the writer), the file's pages
 * read through a memory map (SQLite's most, 2 GiB: a page read is a memory access, not a `read`
 * call: an export's row lookups took a third less), safe syncing, a busy wait. WAL with NORMAL sync
 * cannot corrupt the file on a crash; it may only lose the last commits. SQLite checkpoints the
 * WAL inside whichever commit takes it past the threshold, on the serving thread: at the default
 * 1,000 pages that commit held requests for 5–10 ms during exports; at 100 pages it holds them
 * under a millisecond, for ~8% more time in an export's own steps. Where a background checkpointer
 * runs (Node), the serving thread checkpoints less often ({@link ASSISTED_CHECKPOINT_PAGES}).
 */
export const FILE_PRAGMAS = ['PRAGMA journal_mode = WAL', `PRAGMA mmap_size = ${MAP_BYTES}`, INLINE_CHECKPOINTS, 'PRAGMA synchronous = NORMAL', 'PRAGMA busy_timeout = 5000'];

/**
 * Where the WAL stands before the serving thread checkpoints it itself, when a background
 * checkpointer copies it (~4 MB). Not a backstop for a thread that falls behind, as it was: SQLite
 * starts the WAL over only at a write that finds every frame already copied, and while writes keep
 * coming (a rate-limit count a request) one always lands during the thread's copy, so the WAL
 * grows to here every time. Reads pay for its length: the WAL's index is a linear-probing hash in
 * which each commit of the same page (the rate-limit row's) takes the next slot, and a page read
 * whose probe lands in that run walks it. A journey page's statement took 59 µs with 4,000 pages
 * here, 39 with 1,000 and 37 with 300 (sequential pages in-process, 2026-11-29); 1,000 keeps the
 * serving thread's own checkpoints (what the thread has not copied yet, and a sync) 3× rarer than 300.
 */
const ASSISTED_CHECKPOINT_PAGES = 1000;

/** Starts checkpointing a file's WAL off the serving thread; returns the function that stops it. */
export type BackgroundCheckpoints = (path: string, onFailure: () => void) => () => void;

/**
 * Opens (creating if needed) a SQLite file, or `:memory:`, with a runtime's driver: the folder is
 * made (node:fs works on Node, Bun and Deno alike), a file gets the pragmas above, and Kysely
 * drives the connection through {@link kyselyOver}. With `background`, a file's WAL is copied
 * off the serving thread, and inline only past {@link ASSISTED_CHECKPOINT_PAGES} (or again every
 * 100 pages if that fails).
 */
export function openSqlite<S extends NativeStatement>(
  path: string,
  connect: (path: string) => NativeDatabase<S> & { exec(sql: string): void },
  background?: BackgroundCheckpoints,
): Kysely<Database> {
  const file = path !== ':memory:';
  if (file) mkdirSync(dirname(path), { recursive: true });
  const native = connect(path);
  if (file) for (const pragma of FILE_PRAGMAS) native.exec(pragma);
  if (file && background) native.close = checkpointOffThread(native, path, background);
  return kyselyOver(native);
}

/**
 * Hands the WAL of the file `db` has open (with the pragmas above) to `background`: `db` then
 * checkpoints only past {@link ASSISTED_CHECKPOINT_PAGES}, or every 100 pages again if the background fails. Returns
 * the close to use instead of `db`'s own: it stops the background first, so `db`, closing last,
 * checkpoints what is left and removes the WAL.
 */
export function checkpointOffThread(db: { exec(sql: string): void; close(): void }, path: string, background: BackgroundCheckpoints): () => void {
  let open = true;
  db.exec(`PRAGMA wal_autocheckpoint = ${ASSISTED_CHECKPOINT_PAGES}`);
  const stop = background(path, () => open && db.exec(INLINE_CHECKPOINTS));
  const close = db.close.bind(db);
  return () => {
    open = false;
    stop();
    close();
  };
}
