import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, ManualClock } from '../../adapters/node/index.ts';
import { BACKENDS, reopenableDatabases } from '../support/backends.ts';
import { undoMigrationsFrom } from '../support/undo-migrations.ts';
import { Receiver } from './receiver.ts';
import { ACCOUNT, NOW, person, SITES } from './setup.ts';

describe.each(BACKENDS)('the headers each attempt sent, in the delivery log ($name)', (backend) => {
  const databases = reopenableDatabases(backend);
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await Receiver.start();
  });
  afterAll(() => receiver.close());

  it('are null for attempts logged before migration 0021 kept them, and kept for attempts after it', async () => {
    const database = await databases.fresh();
    const clock = new ManualClock(NOW);
    const open = () => createApi({ database, clock, webhooks: { background: false, random: () => 0 } });
    const old = databases.keep(await open());
    await old.admin.createAccount({ id: ACCOUNT, name: 'Hooked partner' });
    for (const site of SITES) await old.admin.registerSite(ACCOUNT, site);
    const { id } = await old.admin.webhooks.create(ACCOUNT, { url: receiver.url });
    await old.admin.loadPeople(ACCOUNT, [person('per_ada', ['alpha.example'])]);
    await old.webhooks.deliverDue();
    // Back to a database as the code before 0021 left it: attempts without their headers.
    await undoMigrationsFrom(old.db, '0021_webhook_attempt_headers');
    await databases.close(old);

    const api = databases.keep(await open());
    await api.admin.loadPeople(ACCOUNT, [person('per_bob', ['beta.example'])]);
    await api.webhooks.deliverDue();
    const [bob, ada] = (await api.admin.webhooks.deliveries(id)).deliveries;
    expect(ada!.attempts.map((a) => a.headers)).toEqual([null]);
    expect(ada!.test).toBe(false);
    expect(bob!.attempts[0]!.headers).toMatchObject({ 'webhook-id': bob!.id, 'content-type': 'application/json' });
    // The body needs no column of its own: the attempt's time and the delivery rebuild it.
    expect((await api.admin.webhooks.delivery(ada!.id)).attempts[0]!.body).toBe(receiver.withId(ada!.id)[0]!.body);
  });
});
