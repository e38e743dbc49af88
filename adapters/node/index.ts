/** Node entry point: the core plus better-sqlite3 storage, a request listener and a middleware. */
import type { Kysely } from 'kysely';
import { createApi as createCoreApi, type Api, type ApiOptions, type Database } from '../../core/index.ts';
import { openDatabase } from './sqlite.ts';

export * from '../../core/index.ts';
export { openDatabase } from './sqlite.ts';
export { toMiddleware, toNodeListener, type FetchHandler, type MountOptions } from './listener.ts';
export { serve, type RunningServer, type ServeOptions } from './serve.ts';

/** Options of the Node `createApi`: like the core's, with `database` as a Kysely instance or a file path. */
export interface NodeApiOptions extends Omit<ApiOptions, 'db'> {
  /** A SQLite file path (opened with better-sqlite3 in WAL mode), `:memory:`, or a Kysely instance. */
  database: string | Kysely<Database>;
}

/** Creates the API; a path opens (or creates) that SQLite file. */
export async function createApi(options: NodeApiOptions): Promise<Api> {
  const { database, ...rest } = options;
  const db = typeof database === 'string' ? openDatabase(database) : database;
  const api = await createCoreApi({ ...rest, db });
  if (typeof database !== 'string') return api;
  // A database this function opened is closed with the API (checkpointing its WAL).
  return { ...api, close: async () => (await api.close(), await db.destroy()) };
}
