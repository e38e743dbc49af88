import { Kysely, SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';
import type { Database } from '../../core/index.ts';

/** What Bun's and Deno's built-in SQLite statements offer: positional parameters, spread. */
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

/**
 * Gives a runtime's SQLite the shape Kysely's own SqliteDialect drives (better-sqlite3's), so
 * every query, migration and export runs unchanged. Booleans bind as 1/0, as better-sqlite3 does.
 */
export function kyselyOver<S extends NativeStatement>(native: NativeDatabase<S>): Kysely<Database> {
  const bind = (params: ReadonlyArray<unknown>) => params.map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p));
  const database: SqliteDatabase = {
    close: () => native.close(),
    prepare(sql: string): SqliteStatement {
      const statement = native.prepare(sql);
      // Kysely prepares a statement per query and keeps none, so each is freed after its one use:
      // an unfinalized statement keeps the file open after close(), its WAL not checkpointed.
      const once = <T>(work: () => T): T => {
        try {
          return work();
        } finally {
          statement.finalize?.();
        }
      };
      return {
        reader: native.returnsRows(statement),
        all: (params) => once(() => statement.all(...bind(params))),
        run: (params) => once(() => statement.run(...bind(params))),
        iterate: (params) => statement.iterate(...bind(params))[Symbol.iterator]() as IterableIterator<unknown>,
      };
    },
  };
  return new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
}

/** The pragmas every file database gets: WAL (readers never block the writer), safe syncing, a busy wait. */
export const FILE_PRAGMAS = ['PRAGMA journal_mode = WAL', 'PRAGMA synchronous = NORMAL', 'PRAGMA busy_timeout = 5000'];
