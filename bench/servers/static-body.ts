/**
 * The ceiling of a page's req/s over loopback: a bare server of whichever runtime runs this file
 * (node:http, Bun.serve or Deno.serve) answering every request with one file's bytes from memory,
 * no database, no JSON. `<runtime> bench/servers/static-body.ts BODY_FILE`.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { announce } from './api-options.ts';

const file = process.argv[2];
if (!file) {
  console.error('usage: <runtime> bench/servers/static-body.ts BODY_FILE');
  process.exit(2);
}
const body = new Uint8Array(readFileSync(file));
const headers = { 'content-type': 'application/json' };
const answer = () => new Response(body, { headers });

if (typeof Bun !== 'undefined') {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: answer });
  announce({ port: server.port, close: () => server.stop(true) });
} else if (typeof Deno !== 'undefined') {
  let listening!: (port: number) => void;
  const port = new Promise<number>((resolve) => (listening = resolve));
  const server = Deno.serve({ port: 0, hostname: '127.0.0.1', onListen: (addr) => listening(addr.port) }, answer);
  announce({ port: await port, close: () => server.shutdown() });
} else {
  const server = createServer((_req, res) => {
    res.writeHead(200, headers);
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections()));
  announce({ port: (server.address() as AddressInfo).port, close });
}
