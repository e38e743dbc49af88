/** Node entry point: the core over better-sqlite3, a `node:http` listener, a middleware and `serve()`. */
import type { Api } from '../../core/index.ts';
import { createApiWith, type RuntimeApiOptions } from '../shared/with-database.ts';
import { lazyResponse } from './lazy-response.ts';
import { openDatabase } from './sqlite.ts';

export * from '../../core/index.ts';
export { openDatabase } from './sqlite.ts';
export { toMiddleware, toNodeListener, type FetchHandler, type MountOptions } from './listener.ts';
export { answerClientErrors } from './client-errors.ts';
export { serve } from './serve.ts';
export type { RunningServer, RuntimeApiOptions, ServeOptions } from '../shared/with-database.ts';

/** Options of the Node `createApi`: the core's, with `database` as a file path, `:memory:`, or a Kysely instance. */
export type NodeApiOptions = RuntimeApiOptions;

/**
 * Creates the API; a path opens (or creates) that SQLite file with better-sqlite3. Its `fetch`
 * answers JSON with a Response that makes its body stream only when read other than as text
 * (lazy-response.ts): no Node server reads a Response but through its methods.
 */
export async function createApi(options: NodeApiOptions): Promise<Api> {
  const api = await createApiWith(options, openDatabase);
  return Object.assign(api, { fetch: async (request: Request) => lazyResponse(await api.reply(request)) });
}
