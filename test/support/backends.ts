import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { CompiledQuery, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, type DatabaseConnection, type Driver, type QueryResult } from 'kysely';
import pg from 'pg';
import { afterAll, afterEach } from 'vitest';
import type { Database } from '../../adapters/node/index.ts';
import { freshSchema } from './schema-names.ts';

/**
 * The databases the behaviour suites run on: SQLite in memory; PostgreSQL in-process through
 * PGlite (a real Postgres compiled to WASM, so `npm test` needs no server); and, when
 * `VI_TEST_POSTGRES_URL` is set, a real PostgreSQL server. Each world gets a database of its own:
 * a fresh schema on the Postgres backends, dropped when the world closes.
 */
export interface Backend {
  name: 'sqlite' | 'pglite' | 'postgres';
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

/** One PGlite per test file (opening one takes seconds), closed after the file. */
let shared: Promise<PGlite> | undefined;
/** Whoever holds PGlite's one session: a query, or a whole transaction. */
let holder: Promise<void> = Promise.resolve();
/** The schema PGlite's session currently reads and writes. */
let currentSchema: string | undefined;

afterAll(async () => {
  const pglite = shared;
  shared = undefined;
  if (pglite) await (await pglite).close();
});

function pgliteInstance(): Promise<PGlite> {
  // bigint and numeric as numbers, as the server backend's pool reads them.
  shared ??= PGlite.create({ parsers: { 20: (v: string) => Number(v), 1700: (v: string) => Number(v) } });
  return shared;
}

export const pglite: Backend = {
  name: 'pglite',
  async open() {
    const pglite = await pgliteInstance();
    const schema = freshSchema();
    await exclusively(pglite, undefined, () => pglite.exec(`create schema "${schema}"`));
    const db = new Kysely<Database>({
      dialect: {
        createAdapter: () => new PostgresAdapter(),
        createDriver: () => new SchemaDriver(pglite, schema),
        createQueryCompiler: () => new PostgresQueryCompiler(),
        createIntrospector: (k) => new PostgresIntrospector(k),
      },
    });
    return {
      database: db,
      drop: async () => {
        await db.destroy();
        await exclusively(pglite, undefined, () => pglite.exec(`drop schema "${schema}" cascade`));
      },
    };
  },
};

/** Runs `work` holding PGlite's session, switched to `schema` first when one is given. */
async function exclusively<T>(pglite: PGlite, schema: string | undefined, work: () => Promise<T>): Promise<T> {
  let release!: () => void;
  const previous = holder;
  holder = new Promise<void>((resolve) => (release = resolve));
  await previous;
  try {
    if (schema !== undefined && currentSchema !== schema) {
      await pglite.exec(`set search_path to "${schema}"`);
      currentSchema = schema;
    }
    return await work();
  } finally {
    release();
  }
}

/**
 * Kysely's driver over the shared PGlite for one world's schema. A connection holds PGlite's one
 * session from acquisition to release (a transaction included), so worlds of one file never see
 * each other's search path or interleave inside a transaction.
 */
class SchemaDriver implements Driver {
  #release: (() => void) | undefined;

  constructor(
    private readonly pglite: PGlite,
    private readonly schema: string,
  ) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const pglite = this.pglite;
    await new Promise<void>((acquired) => {
      void exclusively(pglite, this.schema, () => new Promise<void>((release) => ((this.#release = release), acquired())));
    });
    return {
      async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
        const result = await pglite.query<R>(query.sql, [...query.parameters]);
        return { rows: result.rows, ...(result.affectedRows ? { numAffectedRows: BigInt(result.affectedRows) } : {}) };
      },
      // eslint-disable-next-line require-yield
      async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
        const result = await pglite.query<R>(query.sql, [...query.parameters]);
        yield { rows: result.rows };
      },
    };
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(): Promise<void> {
    const release = this.#release;
    this.#release = undefined;
    release?.();
  }

  async destroy(): Promise<void> {}
}

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

const serverUrl = process.env.VI_TEST_POSTGRES_URL;

/** Every backend the matrix suites run on: SQLite, PGlite, and the server when one is configured. */
export const BACKENDS: Backend[] = [sqlite, pglite, ...(serverUrl ? [serverBackend(serverUrl)] : [])];

/** The Postgres backends alone (PGlite, and the server when configured). */
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
