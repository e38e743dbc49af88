import { afterEach, describe, expect, it } from 'vitest';
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
