/** The naive floor on Bun: Bun.serve + bun:sqlite. `bun bench/servers/naive-bun.ts DB`. */
import { Database } from 'bun:sqlite';
import { announce, databaseArgument } from './api-options.ts';
import { naiveJourney } from './naive-page.ts';

const db = new Database(databaseArgument());
const handle = naiveJourney((sql) => db.prepare(sql));
const server = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch(request) {
    const url = new URL(request.url);
    const body = handle(url.pathname, url.searchParams);
    return new Response(body ?? '{"error":"not found"}', { status: body === null ? 404 : 200, headers: { 'content-type': 'application/json' } });
  },
});
announce({ port: server.port, close: () => server.stop(true) }, async () => db.close());
