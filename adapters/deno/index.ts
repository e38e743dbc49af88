/** Deno entry point: the core over `node:sqlite`, served with `Deno.serve`. */
import { DatabaseSync } from 'node:sqlite';
import type { Kysely } from 'kysely';
import { atMountPoint, type Api, type Database as Schema } from '../../core/index.ts';
import { openSqlite } from '../shared/sqlite-shim.ts';
import { handlerFault, unusableTarget } from '../shared/handler-fault.ts';
import { baseUrl, createApiWith, type RunningServer, type RuntimeApiOptions, type ServeOptions } from '../shared/with-database.ts';

export * from '../../core/index.ts';
export type { RunningServer, RuntimeApiOptions, ServeOptions } from '../shared/with-database.ts';

/** Opens (creating if needed) a SQLite file with `node:sqlite` in WAL mode, as a Kysely instance. */
export function openDatabase(path: string): Kysely<Schema> {
  return openSqlite(path, (file) => {
    const db = new DatabaseSync(file);
    return { prepare: (sql) => db.prepare(sql), exec: (sql) => db.exec(sql), close: () => db.close(), returnsRows: (s) => s.columns().length > 0 };
  });
}

/** Creates the API; a path opens (or creates) that SQLite file. */
export function createApi(options: RuntimeApiOptions): Promise<Api> {
  return createApiWith(options, openDatabase);
}

/** Serves the API with Deno.serve on a port (0 takes a free one). */
export async function serve(api: Pick<Api, 'fetch'>, options: ServeOptions = {}): Promise<RunningServer> {
  const hostname = options.hostname ?? '127.0.0.1';
  let port = 0;
  let listening!: () => void;
  const ready = new Promise<void>((resolve) => (listening = resolve));
  const server = Deno.serve(
    // onError is Deno's only hook: a handler that throws. What Deno's HTTP layer refuses itself (400
    // for a malformed request or oversized headers) it answers with an empty body; see the README.
    { port: options.port ?? 0, hostname, onListen: (addr) => ((port = addr.port), listening()), onError: handlerFault },
    (request) => (URL.canParse(request.url) ? api.fetch(atMountPoint(request)) : Promise.resolve(unusableTarget(request.url))),
  );
  await ready;
  return { port, url: baseUrl(hostname, port), close: () => server.shutdown() };
}
