/**
 * Child process of the crash test: opens a database file, configures an endpoint, loads people and
 * events with sending held back (`background: false`), prints what it wrote, and waits to be killed.
 * With `send`, it then starts sending too (the test's receiver never answers), so it dies holding claims;
 * with `send-ahead`, it moves its clock ahead first, as an admin may.
 * Usage: load-and-die.ts <database> <receiver url> [send|send-ahead]
 */
import { createApi, ManualClock } from '../../adapters/node/index.ts';
import { ACCOUNT, event, NOW, person, SITES } from './fixtures.ts';

const [database, url, mode] = process.argv.slice(2);
const clock = new ManualClock(NOW);
const api = await createApi({ database: database!, clock, webhooks: { background: false } });
await api.admin.createAccount({ id: ACCOUNT, name: 'Crashing partner' });
for (const site of SITES) await api.admin.registerSite(ACCOUNT, site);
const endpoint = await api.admin.webhooks.create(ACCOUNT, { url: url!, events: ['person.identified', 'person.activity'] });
await api.admin.loadPeople(ACCOUNT, [person('per_ada', ['alpha.example', 'beta.example']), person('per_bob', ['gamma.example'])]);
await api.admin.loadEvents(ACCOUNT, [event('evt_1', 'per_ada', 'alpha.example', 10), event('evt_2', 'per_ada', 'beta.example', 5), event('evt_3', 'per_bob', 'gamma.example', 1)]);
const { deliveries } = await api.admin.webhooks.deliveries(endpoint.id);
console.log(JSON.stringify({ loaded: true, secret: endpoint.secret, deliveryIds: deliveries.map((d) => d.id) }));
if (mode === 'send-ahead') clock.advance(80 * 60);
if (mode) void api.webhooks.deliverDue();
setInterval(() => undefined, 60_000);
