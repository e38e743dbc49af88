/** The naive floor on Node: node:http + better-sqlite3. `node --import tsx bench/servers/naive-node.ts DB`. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import BetterSqlite3 from 'better-sqlite3';
import { announce, databaseArgument } from './api-options.ts';
import { naiveRoutes } from './naive-page.ts';

const db = new BetterSqlite3(databaseArgument());
const handle = naiveRoutes((sql) => db.prepare(sql));
const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const body = handle(url.pathname, url.searchParams);
  res.writeHead(body === null ? 404 : 200, { 'content-type': 'application/json' });
  res.end(body ?? '{"error":"not found"}');
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
announce(
  {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections())),
  },
  async () => void db.close(),
);
