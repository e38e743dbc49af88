/**
 * Run under Node, Bun or Deno by the runtimes test: the API on that runtime's SQLite adapter sends
 * a `person.identified` and a `person.activity` delivery to the receiver in HOOK_URL, signed with
 * HOOK_SECRET, then prints the deliveries' states and closes.
 */
import type { Api, RuntimeApiOptions } from '../../adapters/node/index.ts';
import { ACCOUNT, event, person, SITES } from '../webhooks/fixtures.ts';

const runtime = 'Bun' in globalThis ? 'bun' : 'Deno' in globalThis ? 'deno' : 'node';
const adapter = `../../adapters/${runtime}/index.ts`;
const { createApi } = (await import(adapter)) as { createApi: (options: RuntimeApiOptions) => Promise<Api> };

const api = await createApi({ database: ':memory:' });
await api.admin.createAccount({ id: ACCOUNT, name: `Partner on ${runtime}` });
for (const site of SITES) await api.admin.registerSite(ACCOUNT, site);
const endpoint = await api.admin.webhooks.create(ACCOUNT, { url: process.env.HOOK_URL!, secret: process.env.HOOK_SECRET!, events: ['person.identified', 'person.activity'] });
await api.admin.loadPeople(ACCOUNT, [person('per_ada', ['alpha.example'])]);
await api.admin.loadEvents(ACCOUNT, [event('evt_1', 'per_ada', 'alpha.example', 3), event('evt_2', 'per_ada', 'alpha.example', 2)]);
await api.webhooks.deliverDue();
const { deliveries } = await api.admin.webhooks.deliveries(endpoint.id);
console.log(JSON.stringify({ runtime, statuses: deliveries.map((d) => d.status) }));
await api.close();
