/** The naive floor on Bun: Bun.serve + bun:sqlite. `bun bench/servers/naive-bun.ts DB`. */
import { Database } from 'bun:sqlite';
import { announce, databaseArgument } from './api-options.ts';
import { naiveFetch } from './naive-page.ts';

const db = new Database(databaseArgument());
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: naiveFetch((sql) => db.prepare(sql)) });
announce({ port: server.port, close: () => server.stop(true) }, async () => db.close());
