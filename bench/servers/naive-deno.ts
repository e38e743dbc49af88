/** The naive floor on Deno: Deno.serve + node:sqlite. `deno run -A bench/servers/naive-deno.ts DB`. */
import { DatabaseSync } from 'node:sqlite';
import { announce, databaseArgument } from './api-options.ts';
import { naiveFetch } from './naive-page.ts';

const db = new DatabaseSync(databaseArgument());
let listening!: (port: number) => void;
const port = new Promise<number>((resolve) => (listening = resolve));
const server = Deno.serve({ port: 0, hostname: '127.0.0.1', onListen: (addr) => listening(addr.port) }, naiveFetch((sql) => db.prepare(sql)));
announce({ port: await port, close: () => server.shutdown() }, async () => db.close());
