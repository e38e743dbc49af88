/** Node entry point: the core over better-sqlite3, a `node:http` listener, a middleware and `serve()`. */
import type { Api } from '../../core/index.ts';
import { createApiWith, type RuntimeApiOptions } from '../shared/with-database.ts';
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
 * Creates the API; a path opens (or creates) that SQLite file with better-sqlite3. Its JSON
 * responses make their body streams only when read other than as text (`lazyBodies`): no Node
 * server reads a Response but through its methods.
 */
export function createApi(options: NodeApiOptions): Promise<Api> {
  return createApiWith({ ...options, lazyBodies: options.lazyBodies ?? true }, openDatabase);
}
