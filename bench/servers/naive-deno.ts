/** The naive floor on Deno: Deno.serve + node:sqlite. `deno run -A bench/servers/naive-deno.ts DB`. */
import { DatabaseSync } from 'node:sqlite';
import { announce, databaseArgument } from './api-options.ts';
import { naiveJourney } from './naive-page.ts';

const db = new DatabaseSync(databaseArgument());
const handle = naiveJourney((sql) => db.prepare(sql));
let listening!: (port: number) => void;
const port = new Promise<number>((resolve) => (listening = resolve));
const server = Deno.serve({ port: 0, hostname: '127.0.0.1', onListen: (addr) => listening(addr.port) }, (request) => {
  const url = new URL(request.url);
  const body = handle(url.pathname, url.searchParams);
  return new Response(body ?? '{"error":"not found"}', { status: body === null ? 404 : 200, headers: { 'content-type': 'application/json' } });
});
announce({ port: await port, close: () => server.shutdown() }, async () => db.close());
