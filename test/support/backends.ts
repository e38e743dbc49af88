import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import pg from 'pg';
import { afterEach } from 'vitest';
import type { Database } from '../../adapters/node/index.ts';
import { freshSchema } from './schema-names.ts';

/**
 * The databases the behaviour suites run on: SQLite in memory in `npm test`, which needs no
 * server; the PostgreSQL server named by `VI_TEST_POSTGRES_URL` in `npm run test:full` (its
 * vitest project sets it). Each world gets a database of its own: a fresh schema on the server.
 */
export interface Backend {
  name: 'sqlite' | 'postgres';
  /** A fresh, empty database for one world, as `createApi`'s `database`, and how to drop it. */
  open(): Promise<OpenedDatabase>;
}

/** A world's database and its removal. */
export interface OpenedDatabase {
  database: string | Kysely<Database> | pg.Pool;
  drop(): Promise<void>;
}

export const sqlite: Backend = {
  name: 'sqlite',
  open: async () => ({ database: ':memory:', drop: async () => undefined }),
};

/** A real PostgreSQL server, when `VI_TEST_POSTGRES_URL` names one. */
export function serverBackend(url: string): Backend {
  return {
    name: 'postgres',
    async open() {
      const schema = freshSchema();
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        await admin.query(`create schema "${schema}"`);
      } finally {
        await admin.end();
      }
      // The world's pool works in its schema alone; the API is given the pool, as a host would.
      const pool = new pg.Pool({ connectionString: url, max: 4, options: `-c search_path=${schema}` });
      return {
        database: pool,
        // The schema stays until the run ends (test/support/postgres-schemas.ts drops them all):
        // dropping it now would race with other workers' migrations.
        drop: () => pool.end(),
      };
    },
  };
}

/** The PostgreSQL server of a `test:full` run; undefined in `npm test`. */
export const SERVER_URL = process.env.VI_TEST_POSTGRES_URL || undefined;

/** The backend the matrix suites run on in this run: SQLite, or the server in a `test:full` run. */
export const BACKENDS: Backend[] = SERVER_URL ? [serverBackend(SERVER_URL)] : [sqlite];

/** The Postgres backends alone: the server in a `test:full` run, none in `npm test`. */
export const POSTGRES_BACKENDS: Backend[] = BACKENDS.filter((b) => b.name !== 'sqlite');

/**
 * A fresh database of `backend` that outlives the API opened on it, so a test can close the API
 * and open the database again (a migration test): a file in a folder of its own for SQLite, which
 * `drop` removes; the backend's own database otherwise.
 */
async function openReopenable(backend: Backend): Promise<OpenedDatabase> {
  if (backend.name !== 'sqlite') return backend.open();
  const dir = mkdtempSync(join(tmpdir(), 'vi-reopenable-'));
  return { database: join(dir, 'db.sqlite'), drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

/** Fresh reopenable databases for a test, and the APIs opened on them. */
export interface ReopenableDatabases {
  fresh(): Promise<OpenedDatabase['database']>;
  /** `api`, closed after the test unless the test closed it through {@link close}. */
  keep<T extends Closable>(api: T): T;
  /** Closes a kept API now (to open its database again). */
  close(api: Closable): Promise<void>;
}

interface Closable {
  close(): Promise<void>;
}

/**
 * Reopenable databases of `backend` for the tests of one `describe` (call it there): `fresh()`
 * opens one, `keep(api)` marks an API opened on one. After each test the kept APIs still open are
 * closed, then the databases dropped, whether the test passed or failed midway.
 */
export function reopenableDatabases(backend: Backend): ReopenableDatabases {
  const opened: OpenedDatabase[] = [];
  const apis: Closable[] = [];
  afterEach(async () => {
    for (const api of apis.splice(0)) await api.close();
    for (const db of opened.splice(0).reverse()) await db.drop();
  });
  return {
    fresh: async () => {
      const db = await openReopenable(backend);
      opened.push(db);
      return db.database;
    },
    keep: (api) => (apis.push(api), api),
    close: async (api) => {
      const at = apis.indexOf(api);
      if (at >= 0) apis.splice(at, 1);
      await api.close();
    },
  };
}
