import type { Kysely } from 'kysely';
import type { Pool } from 'pg';
import { createApi, type Api, type ApiOptions, type Database } from '../../core/index.ts';
import { checkApiOptions } from '../../core/options.ts';
import { nodeDigests } from './node-digests.ts';
import { isPgPool, isPostgresUrl, kyselyOverPool, openPostgres } from './postgres.ts';

/**
 * Options of each runtime's `createApi`: the core's, with `database` as a SQLite file path or
 * `:memory:`, a `postgres://` URL, a `pg` pool, or a Kysely instance (SQLite or PostgreSQL).
 */
export interface RuntimeApiOptions extends Omit<ApiOptions, 'db'> {
  database: string | Pool | Kysely<Database>;
}

/**
 * Creates the API, opening a path with the runtime's SQLite driver and a `postgres://` URL with a
 * `pg` pool; `close()` then also closes what it opened (a pool or Kysely instance the host passed
 * stays open). Every runtime here has `node:crypto`, so keys and cursors are hashed synchronously.
 */
export async function createApiWith(options: RuntimeApiOptions, open: (path: string) => Kysely<Database>): Promise<Api> {
  const { database, ...rest } = options;
  // A refused option opens no database (nor creates its file).
  checkApiOptions(rest);
  const owned = typeof database === 'string';
  const db = typeof database === 'string' ? (isPostgresUrl(database) ? await openPostgres(database) : open(database)) : isPgPool(database) ? await kyselyOverPool(database) : database;
  let api: Api;
  try {
    api = await createApi({ digests: nodeDigests, ...rest, db });
  } catch (error) {
    if (owned) await db.destroy().catch(() => undefined);
    throw error;
  }
  if (!owned) return api;
  const close = api.close;
  // On the API itself, not a copy: a copy would lose `reply` (see core/api.ts).
  return Object.assign(api, { close: async () => (await close(), await db.destroy()) });
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
