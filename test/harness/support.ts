import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApi, serve, toNodeListener, type Api, type ApiOptions, type Clock } from '../../adapters/node/index.ts';
import type { FetchHandler } from './variants/index.ts';
import { seedDemo } from '../../scripts/demo/seed.ts';

/** Demo sites whose keys the harness gets: a root domain with a subdomain and a look-alike, another client's root, a lone client. */
const SCOPED_PREFERENCE = ['acme-example.com', 'globex.example', 'initech.test'];

/** A seeded server over HTTP and what the harness needs to reach it. */
export interface Served {
  api: Api;
  baseUrl: string;
  accountKey: string;
  scopedKeys: { domain: string; key: string }[];
  /** Both account keys of the account (the first is accountKey), for the shared-budget check. */
  accountKeys: string[];
  /** Unexpected faults the API reported (answered 500). */
  faults: unknown[];
  close(): Promise<void>;
}

/**
 * A clock running 120 times faster than the wall clock from now on, so 900 s of server time
 * pass in 7.5 s. The harness reads server time from the HTTP Date header, which the API sets.
 */
export function fastClock(speed = 120): Clock {
  const t0 = Date.now();
  return { now: () => t0 + (Date.now() - t0) * speed };
}

/**
 * Creates an account holding the demo data (seed 3, `people` people, anchored at the API's now),
 * an account key and a scoped key per site; returns the account key and `scoped` of the scoped
 * keys, the preferred domains first.
 */
export async function seedAccount(api: Api, accountId: string, { people = 150, scoped = 3 }: { people?: number; scoped?: number } = {}): Promise<Pick<Served, 'accountKey' | 'scopedKeys' | 'accountKeys'>> {
  const { admin } = api;
  await admin.createAccount({ id: accountId, name: `Demo ${accountId}` });
  await seedDemo(admin, accountId, { seed: 3, people, anchor: api.clock.now() });
  const accountKey = (await admin.issueAccountKey(accountId)).key;
  const secondKey = (await admin.issueAccountKey(accountId, { label: 'second' })).key;
  const keys = new Map<string, string>();
  for (const site of await admin.listSites(accountId)) keys.set(site.domain, (await admin.issueScopedKey(accountId, site.domain)).key);
  const domains = [...SCOPED_PREFERENCE.filter((d) => keys.has(d)), ...[...keys.keys()].filter((d) => !SCOPED_PREFERENCE.includes(d))];
  return { accountKey, accountKeys: [accountKey, secondKey], scopedKeys: domains.slice(0, scoped).map((domain) => ({ domain, key: keys.get(domain)! })) };
}

/**
 * Exports paced to take a few hundred milliseconds over the demo data instead of a few, so
 * that three can be seen running at once (the destructive check of the export limit).
 */
export const PACED_EXPORTS = { batchRows: 10, pace: () => new Promise<void>((resolve) => setTimeout(resolve, 20)) };

/** Serves a handler mounted under a path prefix (as docs/embedding.md's example does), on a free port. */
async function serveMounted(handler: FetchHandler, prefix: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(toNodeListener(handler, { prefix }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${prefix}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // keep-alive sockets would hold close() open
      }),
  };
}

/**
 * Builds an in-memory API with one demo account (see seedAccount; `people` people) and serves it
 * over node:http on a free port, through `wrap` when given, under `prefix` when given.
 */
export async function startServer(options: { wrap?: (api: Api) => FetchHandler; clock?: Clock; exports?: typeof PACED_EXPORTS; people?: number; rateLimits?: ApiOptions['rateLimits']; prefix?: string } = {}): Promise<Served> {
  const faults: unknown[] = [];
  const api = await createApi({ database: ':memory:', clock: options.clock, exports: options.exports, rateLimits: options.rateLimits, onError: (error) => void faults.push(error) });
  const { accountKey, scopedKeys, accountKeys } = await seedAccount(api, 'acc_demo', { people: options.people });
  const handler = options.wrap ? options.wrap(api) : api;
  const server = options.prefix ? await serveMounted(handler, options.prefix) : await serve(handler, { port: 0 });
  return {
    api,
    baseUrl: server.url,
    accountKey,
    scopedKeys,
    accountKeys,
    faults,
    async close() {
      await server.close();
      await api.close(); // also closes the in-memory database
    },
  };
}

/** Runs `work` over `items` with at most `limit` at a time; results keep the items' order. */
export function pool<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R>[] {
  let running = 0;
  const waiting: (() => void)[] = [];
  const slot = async () => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
  };
  const release = () => {
    running--;
    waiting.shift()?.();
  };
  return items.map(async (item) => {
    await slot();
    try {
      return await work(item);
    } finally {
      release();
    }
  });
}
