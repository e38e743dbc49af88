import type { Kysely } from 'kysely';
import type { Pool } from 'pg';
import { createApi, type Api, type ApiOptions, type Database } from '../../core/index.ts';
import { checkApiOptions } from '../../core/options.ts';
import { nodeDigests } from './node-digests.ts';
import { isPgPool, isPostgresUrl, kyselyOverPool, openPostgres } from './postgres.ts';
import { OutageLog } from './postgres-outage.ts';
import { dialectOf } from '../../core/store/dialect/index.ts';

/**
 * Options of each runtime's `createApi`: the core's, with `database` as a SQLite file path or
 * `:memory:`, a `postgres://` URL, a `pg` pool, or a Kysely instance (SQLite or PostgreSQL).
 */
export interface RuntimeApiOptions extends Omit<ApiOptions, 'db' | 'readDb'> {
  database: string | Pool | Kysely<Database>;
  /**
   * A PostgreSQL streaming-replication hot standby of `database` to read pages, journeys,
   * companies, stats and single resources from (the core's `readDb`): a `postgres://` URL, a `pg`
   * pool or a Kysely instance. PostgreSQL only; never migrated nor written to.
   */
  readDatabase?: string | Pool | Kysely<Database>;
}

/**
 * Creates the API, opening a path with the runtime's SQLite driver and a `postgres://` URL with a
 * `pg` pool; `close()` then also closes what it opened (a pool or Kysely instance the host passed
 * stays open). Every runtime here has `node:crypto`, so keys and cursors are hashed synchronously.
 */
export async function createApiWith(options: RuntimeApiOptions, open: (path: string) => Kysely<Database>): Promise<Api> {
  const { database, readDatabase, ...rest } = options;
  // A refused option opens no database (nor creates its file).
  checkApiOptions(rest);
  checkReadDatabase(database, readDatabase);
  const owned: Kysely<Database>[] = [];
  let api: Api;
  try {
    const main = await openGiven(database, open);
    if (main.owned) owned.push(main.db);
    // The read database's outages are logged under a name of their own.
    const read = readDatabase === undefined ? undefined : await openGiven(readDatabase, open, new OutageLog(undefined, true));
    if (read?.owned) owned.push(read.db);
    api = await createApi({ digests: nodeDigests, ...rest, db: main.db, readDb: read?.db });
  } catch (error) {
    await Promise.all(owned.map((db) => db.destroy().catch(() => undefined)));
    throw error;
  }
  if (owned.length === 0) return api;
  const close = api.close;
  // On the API itself, not a copy: a copy would lose `reply` (see core/api.ts).
  return Object.assign(api, {
    close: async () => {
      await close();
      await Promise.all(owned.map((db) => db.destroy()));
    },
  });
}

/** A Kysely instance over what the host gave, and whether the API opened it (and so closes it). */
async function openGiven(given: string | Pool | Kysely<Database>, open: (path: string) => Kysely<Database>, outages?: OutageLog): Promise<{ db: Kysely<Database>; owned: boolean }> {
  if (typeof given === 'string') return { db: isPostgresUrl(given) ? await openPostgres(given, outages) : open(given), owned: true };
  return { db: isPgPool(given) ? await kyselyOverPool(given, outages) : given, owned: false };
}

/**
 * Refuses, before anything is opened, a `readDatabase` that cannot be one: beside a SQLite
 * `database` (SQLite has no streaming standbys), or given as anything but PostgreSQL.
 */
function checkReadDatabase(database: RuntimeApiOptions['database'], readDatabase: RuntimeApiOptions['readDatabase']): void {
  if (readDatabase === undefined) return;
  const isSqlite = (value: unknown) => (typeof value === 'string' ? !isPostgresUrl(value) : !isPgPool(value) && dialectOf(value as Kysely<Database>).name === 'sqlite');
  if (isSqlite(database)) throw new TypeError('readDatabase is for PostgreSQL: database is SQLite, which has no read replicas');
  if (isSqlite(readDatabase)) throw new TypeError('readDatabase must be a postgres:// URL, a pg pool or a Kysely instance over PostgreSQL (a hot standby of database)');
}

/** A listening server and how to stop it, the same on every runtime. */
export interface RunningServer {
  port: number;
  url: string;
  /** Stops accepting connections, lets open requests finish (cut off after a grace period), and resolves. */
  close(): Promise<void>;
}

/** Options of each runtime's `serve`. */
export interface ServeOptions {
  port?: number;
  hostname?: string;
}

/** `http://host:port`, with brackets for an IPv6 address. */
export function baseUrl(hostname: string, port: number): string {
  return `http://${hostname.includes(':') ? `[${hostname}]` : hostname}:${port}`;
}
