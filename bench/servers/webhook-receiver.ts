/**
 * The webhooks suite's receiver, in its own process so it takes nothing from the API's event loop:
 * answers 200 to every POST and notes when each delivery arrived (epoch ms, sub-millisecond) and
 * whose it was. `GET /received` hands the notes over and forgets them.
 *
 *   node --import tsx bench/servers/webhook-receiver.ts   → prints {"port":N}
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One delivery as noted: arrival time, event kind, person id. */
export type Receipt = [atMs: number, event: string, personId: string];

let receipts: Receipt[] = [];
const server = createServer((req, res) => {
  if (req.method === 'GET') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(receipts));
    receipts = [];
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const at = performance.timeOrigin + performance.now();
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { event: string; data: { person: { id: string } } };
    receipts.push([at, body.event, body.data.person.id]);
    res.writeHead(200).end();
  });
});
// Longer than any pause of the sender (a big load holds its event loop), so no idle connection is
// closed under a request it is about to carry.
server.keepAliveTimeout = 600_000;
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: (server.address() as AddressInfo).port })));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
