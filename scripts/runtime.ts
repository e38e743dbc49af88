import type { Kysely } from 'kysely';
import type { Api, Database } from '../core/index.ts';
import type { RunningServer, RuntimeApiOptions, ServeOptions } from '../adapters/shared/with-database.ts';

/** What every runtime adapter offers the scripts. */
export interface RuntimeAdapter {
  name: 'node' | 'bun' | 'deno';
  createApi(options: RuntimeApiOptions): Promise<Api>;
  serve(api: Pick<Api, 'fetch'>, options?: ServeOptions): Promise<RunningServer>;
  /** Opens (creating if needed) a SQLite file with the runtime's driver. */
  openDatabase(path: string): Kysely<Database>;
}

/** The adapter of the runtime running this script, imported only there: Bun and Deno cannot load better-sqlite3. */
export async function loadRuntime(): Promise<RuntimeAdapter> {
  if ('Bun' in globalThis) return { name: 'bun', ...(await import('../adapters/bun/index.ts')) };
  if ('Deno' in globalThis) return { name: 'deno', ...(await import('../adapters/deno/index.ts')) };
  return { name: 'node', ...(await import('../adapters/node/index.ts')) };
}
