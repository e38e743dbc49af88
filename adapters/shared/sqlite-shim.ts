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
 * Gives a runtime's SQLite the shape Kysely's SqliteDialect drives, so every query, migration and
 * export runs unchanged on each runtime. Each SQL text is prepared once and cached (preparing costs
 * as much as a cheap query); a hit changes nothing, so it allocates nothing, and a full cache evicts
 * by second chance. Booleans bind as 1/0.
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
    // BEGIN IMMEDIATE, not Kysely's deferred BEGIN: every transaction here writes, and taking the
    // write lock up front makes processes sharing a file wait their turn instead of failing BUSY.
    prepare: (sql: string): SqliteStatement => prepared(sql === 'begin' ? 'begin immediate' : sql).kysely,
  };
  return new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
}

/** A bare parameter after LIMIT or LIKE, as Kysely and the stores' SQL templates write it. */
const PLANNED_WITH_ITS_VALUE = / (limit|like) \?/g;

/**
 * The SQL as prepared: `limit +?` and `like +?` for a bare `limit ?` and `like ?`. SQLite plans
 * with the value bound to such a parameter, so rebinding it expires the statement and every run
 * prepares it anew; `+?` is an expression planned without its value.
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
 * The pragmas every file database gets: WAL (readers never block the writer), a memory map (page
 * reads are memory accesses), NORMAL sync (a crash may lose the last commits, never corrupt the
 * file), a busy wait, and a small autocheckpoint so the commit that checkpoints holds requests
 * only briefly. With a background checkpointer (Node) see {@link ASSISTED_CHECKPOINT_PAGES}.
 */
export const FILE_PRAGMAS = ['PRAGMA journal_mode = WAL', `PRAGMA mmap_size = ${MAP_BYTES}`, INLINE_CHECKPOINTS, 'PRAGMA synchronous = NORMAL', 'PRAGMA busy_timeout = 5000'];

/**
 * Where the WAL stands before the serving thread checkpoints it itself, when a background
 * checkpointer copies it (~4 MB). While writes keep coming the WAL grows to here every time, and
 * reads pay for its length (its index probes walk repeated commits of a page), so it stays modest.
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
