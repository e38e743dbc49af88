/**
 * The peer: json-server 0.17 serving a JSON file, set up as its CLI does with `--quiet`
 * (`json-server --quiet db.json`: its default middlewares without the request logger, then
 * the router over the file). `node --import tsx bench/servers/json-server.ts DB_JSON`.
 */
import { createRequire } from 'node:module';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { announce, databaseArgument } from './api-options.ts';

interface JsonServerModule {
  create(): { use(handler: unknown): void; listen(port: number, host: string, done: () => void): Server };
  defaults(options: { logger: boolean; bodyParser: boolean }): unknown;
  router(source: string): unknown;
}

const jsonServer = createRequire(import.meta.url)('json-server') as JsonServerModule;
const app = jsonServer.create();
app.use(jsonServer.defaults({ logger: false, bodyParser: true }));
app.use(jsonServer.router(databaseArgument()));
const server: Server = await new Promise((resolve) => {
  const s = app.listen(0, '127.0.0.1', () => resolve(s));
});
announce({
  port: (server.address() as AddressInfo).port,
  close: () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections())),
});
