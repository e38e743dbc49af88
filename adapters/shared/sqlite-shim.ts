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
 * here each SQL text is prepared once and kept (least recently used go first), because preparing
 * costs as much as running a cheap query. Booleans bind as 1/0.
 */
export function kyselyOver<S extends NativeStatement>(native: NativeDatabase<S>): Kysely<Database> {
  const bind = (params: ReadonlyArray<unknown>) => params.map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p));
  const cache = new Map<string, S>();
  const cached = (sql: string): S => {
    let statement = cache.get(sql);
    if (statement) cache.delete(sql);
    else {
      statement = native.prepare(sql);
      if (cache.size >= STATEMENT_CACHE_SIZE) {
        const [oldest, evicted] = cache.entries().next().value as [string, S];
        cache.delete(oldest);
        evicted.finalize?.();
      }
    }
    cache.set(sql, statement); // re-inserted: now the most recently used
    return statement;
  };
  const database: SqliteDatabase = {
    close() {
      // An unfinalized statement keeps Bun's file open after close(), its WAL not checkpointed.
      for (const statement of cache.values()) statement.finalize?.();
      cache.clear();
      native.close();
    },
    prepare(sql: string): SqliteStatement {
      // Kysely begins transactions with a plain (deferred) BEGIN, which takes the write lock only at
      // the first write. Every transaction here writes, and one that read first fails at once with
      // SQLITE_BUSY (no busy wait) when another process wrote in between. Taking the write lock at
      // BEGIN makes it wait its turn (busy_timeout) instead: processes sharing a file take turns.
      const statement = cached(sql === 'begin' ? 'begin immediate' : sql);
      return {
        reader: native.returnsRows(statement),
        // all() and run() finish before they return, so one shared statement can never be mid-use.
        all: (params) => statement.all(...bind(params)),
        run: (params) => statement.run(...bind(params)),
        // An iteration stays open across awaits, while other queries may run the same SQL: it gets its own statement.
        iterate: (params) => iterateOnce(native.prepare(sql), bind(params)),
      };
    },
  };
  return new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
}

/** Iterates a statement of its own and frees it when the iteration ends, however it ends. */
function* iterateOnce(statement: NativeStatement, params: unknown[]): IterableIterator<unknown> {
  try {
    yield* statement.iterate(...params);
  } finally {
    statement.finalize?.();
  }
}

/**
 * The pragmas every file database gets: WAL (readers never block the writer), safe syncing, a
 * busy wait. WAL with NORMAL sync cannot corrupt the file on a crash; it may only lose the last commits.
 */
const FILE_PRAGMAS = ['PRAGMA journal_mode = WAL', 'PRAGMA synchronous = NORMAL', 'PRAGMA busy_timeout = 5000'];

/**
 * Opens (creating if needed) a SQLite file, or `:memory:`, with a runtime's driver: the folder is
 * made (node:fs works on Node, Bun and Deno alike), a file gets the pragmas above, and Kysely
 * drives the connection through {@link kyselyOver}.
 */
export function openSqlite<S extends NativeStatement>(path: string, connect: (path: string) => NativeDatabase<S> & { exec(sql: string): void }): Kysely<Database> {
  const file = path !== ':memory:';
  if (file) mkdirSync(dirname(path), { recursive: true });
  const native = connect(path);
  if (file) for (const pragma of FILE_PRAGMAS) native.exec(pragma);
  return kyselyOver(native);
}
