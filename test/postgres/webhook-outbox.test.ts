import { afterEach, describe, expect, it } from 'vitest';
import { createApi } from '../../adapters/node/index.ts';
import { WebhooksStore } from '../../core/store/webhooks-store.ts';
import { BACKENDS } from '../support/backends.ts';
import { createWorld, NOW, type World } from '../support/world.ts';

const day = (offset: number) => new Date(NOW - offset * 86_400_000).toISOString();

describe.each(BACKENDS)('the webhook outbox on every backend ($name)', (backend) => {
  let world: World | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  it('writes person.identified with the Person the read API returns, in the load that identified them', async () => {
    world = await createWorld({ backend });
    const { api, accountKey } = world;
    // Port 9 (discard) is never listened on here: the delivery stays in the outbox to be read back.
    const endpoint = await api.admin.webhooks.create('acc_a', { url: 'http://127.0.0.1:9/hook', events: ['person.identified', 'person.activity'] });
    await api.admin.loadPeople('acc_a', [
      { id: 'per_new', email: 'new@mail.example', firstName: 'Nova', companyId: 'co_01', visits: [{ domain: 'shop.alpha.example', visitCount: 2, firstSeen: day(3), lastSeen: day(1) }] },
    ]);
    await api.admin.loadEvents('acc_a', [
      { eventId: 'evt_new_1', personId: 'per_new', sessionId: 's', eventType: 'page_view', timestamp: day(1), url: 'https://shop.alpha.example/', domain: 'shop.alpha.example', pageTitle: 'Shop' },
    ]);

    const { deliveries } = await api.admin.webhooks.deliveries(endpoint.id);
    const identified = deliveries.find((d) => d.event === 'person.identified')!;
    const activity = deliveries.find((d) => d.event === 'person.activity')!;
    const read = await api.fetch(new Request('http://api.test/v1/people/per_new', { headers: { 'x-api-key': accountKey } }));
    expect(read.status).toBe(200);
    expect((identified.payload as { data: { person: unknown } }).data.person).toEqual(((await read.json()) as { data: unknown }).data);
    expect(identified).toMatchObject({ domain: 'shop.alpha.example', clientRef: 'alpha', status: 'pending' });
    expect((activity.payload as { data: { events: { eventId: string }[] } }).data.events.map((e) => e.eventId)).toEqual(['evt_new_1']);
  });
});

describe.each(BACKENDS)('a claim that outlived its lease ($name)', (backend) => {
  it('logs its late attempt but leaves the delivery as the newer claim recorded it', async () => {
    const opened = await backend.open();
    const api = await createApi({ database: opened.database, webhooks: { background: false } });
    try {
      await api.admin.createAccount({ id: 'acc_lease', name: 'Lease' });
      await api.admin.registerSite('acc_lease', { domain: 'lease.example' });
      const endpointId = (await api.admin.webhooks.create('acc_lease', { url: 'http://127.0.0.1:9/hook' })).id;
      const seen = new Date(Date.now() - 3_600_000).toISOString();
      await api.admin.loadPeople('acc_lease', [{ id: 'per_1', visits: [{ domain: 'lease.example', visitCount: 1, firstSeen: seen, lastSeen: seen }] }]);
      const store = new WebhooksStore(api.db);
      // A moment when the delivery, due when loaded (by the system clock), is due.
      const due = Math.floor(Date.now() / 1000) + 3600;
      const [stalled] = await store.claim(endpointId, due, { owner: 'dsp_stalled', now: due, until: due + 60 }, 1);
      // Its lease runs out; another dispatcher claims the delivery and gets it delivered.
      const [fresh] = await store.claim(endpointId, due + 61, { owner: 'dsp_fresh', now: due + 61, until: due + 121 }, 1);
      expect(fresh!.pk).toBe(stalled!.pk);
      await store.recordAttempt(fresh!, { at: due + 62, status: 204, latencyMs: 5, error: null, headers: {}, next: { status: 'delivered' } });
      // The stalled one's request finally fails: it must not queue the delivered delivery again.
      await store.recordAttempt(stalled!, { at: due + 63, status: null, latencyMs: 30_000, error: 'timed out', headers: {}, next: { status: 'pending', at: due + 120 } });
      const row = await store.delivery(stalled!.id);
      expect(row).toMatchObject({ status: 'delivered', attempts: 1, last_status: 204, lease_owner: null });
      expect((await store.attempts([stalled!.pk])).map((a) => [a.seq, a.status, a.error])).toEqual([
        [1, 204, null],
        [2, null, 'timed out'],
      ]);
    } finally {
      await api.close();
      await opened.drop();
    }
  });
});
