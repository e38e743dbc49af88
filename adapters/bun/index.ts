/** Bun entry point: the core over `bun:sqlite`, served with `Bun.serve`. */
import { Database } from 'bun:sqlite';
import type { Kysely } from 'kysely';
import { atMountPoint, type Api, type Database as Schema } from '../../core/index.ts';
import { openSqlite } from '../shared/sqlite-shim.ts';
import { handlerFault } from '../shared/handler-fault.ts';
import { baseUrl, createApiWith, type RunningServer, type RuntimeApiOptions, type ServeOptions } from '../shared/with-database.ts';

export * from '../../core/index.ts';
export type { RunningServer, RuntimeApiOptions, ServeOptions } from '../shared/with-database.ts';

/** Opens (creating if needed) a SQLite file with `bun:sqlite` in WAL mode, as a Kysely instance. */
export function openDatabase(path: string): Kysely<Schema> {
  return openSqlite(path, (file) => {
    const db = new Database(file, { create: true });
    return { prepare: (sql) => db.prepare(sql), exec: (sql) => db.exec(sql), close: () => db.close(), returnsRows: (s) => s.columnNames.length > 0 };
  });
}

/** Creates the API; a path opens (or creates) that SQLite file. */
export function createApi(options: RuntimeApiOptions): Promise<Api> {
  return createApiWith(options, openDatabase);
}

/** Serves the API with Bun.serve on a port (0 takes a free one). */
export async function serve(api: Pick<Api, 'fetch'>, options: ServeOptions = {}): Promise<RunningServer> {
  const hostname = options.hostname ?? '127.0.0.1';
  const server = Bun.serve({
    port: options.port ?? 0,
    hostname,
    fetch: (request) => api.fetch(atMountPoint(request)),
    // Bun's only hook: a handler that throws (the core never does; a handler passed in instead might).
    // What Bun's HTTP layer refuses itself (431, 400, 505) it answers with an empty body; see the README.
    error: handlerFault,
  });
  return {
    port: server.port,
    url: baseUrl(hostname, server.port),
    async close() {
      const force = setTimeout(() => void server.stop(true), 5000);
      await server.stop();
      clearTimeout(force);
    },
  };
}
