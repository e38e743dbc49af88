import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { schemaUrl, type SchemaWay } from './processes.ts';
import { SERVER_URL } from './backends.ts';

/** Plain SQL on the database API processes share, read beside them (integers as numbers). */
export interface Inspector {
  /** The first column of the first row, as a number (a `count(*)`). */
  count(sql: string): Promise<number>;
  rows<T>(sql: string): Promise<T[]>;
  close(): Promise<void>;
}

/** A database several API processes share: what to pass as `--db`, and how to read it directly once they made it. */
export interface SharedDatabase {
  name: string;
  open(dir: string): Promise<{ db: string; inspect(): Inspector }>;
}

/** A SQLite file in `dir`, opened read-only beside the processes. */
export const sqliteFile: SharedDatabase = {
  name: 'a SQLite file',
  open: async (dir) => {
    const db = join(dir, 'demo.sqlite');
    return {
      db,
      inspect: () => {
        const file = new BetterSqlite3(db, { readonly: true });
        return {
          count: async (sql) => Number(Object.values(file.prepare(sql).get() as object)[0]),
          rows: async <T,>(sql: string) => file.prepare(sql).all() as T[],
          close: async () => void file.close(),
        };
      },
    };
  },
};

/** A fresh schema on the PostgreSQL server at `url`, chosen `way` (see {@link schemaUrl}), read through a pool of one connection. */
export function postgresSchema(url: string, way: SchemaWay = 'options'): SharedDatabase {
  return {
    name: way === 'options' ? 'PostgreSQL' : 'PostgreSQL (its schema named in the URL)',
    open: async () => {
      const target = await schemaUrl(url, way);
      return {
        db: target.url,
        inspect: () => {
          // bigint as a number, as the API's own pool reads it.
          const types = { getTypeParser: (oid: number, format?: string) => (oid === 20 ? Number : pg.types.getTypeParser(oid, format as 'text')) };
          const pool = new pg.Pool({ connectionString: url, options: `-c search_path=${target.schema}`, max: 1, types });
          return {
            count: async (sql) => Number(Object.values((await pool.query(sql)).rows[0] as object)[0]),
            rows: async <T,>(sql: string) => (await pool.query(sql)).rows as T[],
            close: () => pool.end(),
          };
        },
      };
    },
  };
}

/**
 * A SQLite file always, and a schema of the PostgreSQL server in a `test:full` run, chosen by the
 * URL's `schema=` as behind a pooler (`test/processes/seeding.test.ts` and the runtimes' test use
 * the `options` startup parameter).
 */
export const SHARED_DATABASES: SharedDatabase[] = [sqliteFile, ...(SERVER_URL ? [postgresSchema(SERVER_URL, 'schema')] : [])];
