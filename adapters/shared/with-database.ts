import type { Kysely } from 'kysely';
import { createApi, type Api, type ApiOptions, type Database } from '../../core/index.ts';
import { nodeDigests } from './node-digests.ts';

/** Options of each runtime's `createApi`: the core's, with `database` as a file path, `:memory:`, or a Kysely instance. */
export interface RuntimeApiOptions extends Omit<ApiOptions, 'db'> {
  database: string | Kysely<Database>;
}

/**
 * Creates the API, opening a path with the runtime's driver; `close()` then also closes that database.
 * Every runtime here has `node:crypto`, so keys and cursors are hashed synchronously.
 */
export async function createApiWith(options: RuntimeApiOptions, open: (path: string) => Kysely<Database>): Promise<Api> {
  const { database, ...rest } = options;
  const db = typeof database === 'string' ? open(database) : database;
  const api = await createApi({ digests: nodeDigests, ...rest, db });
  if (typeof database !== 'string') return api;
  return { ...api, close: async () => (await api.close(), await db.destroy()) };
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
