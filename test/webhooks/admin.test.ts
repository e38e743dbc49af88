import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AdminError, type Api, type ManualClock } from '../../adapters/node/index.ts';
import { clientFor } from '../support/client.ts';
import { inProcess } from '../support/targets.ts';
import { Receiver } from './receiver.ts';
import { ACCOUNT, expectAllGenuine, hookedApi, person, verifyAt } from './setup.ts';

let receiver: Receiver;
let api: Api;
let clock: ManualClock;
let accountKey: string;
beforeEach(async () => {
  receiver = await Receiver.start();
  ({ api, clock, accountKey } = await hookedApi());
});
afterEach(async () => {
  expectAllGenuine(receiver);
  await api.close();
  await receiver.close();
});

/** The AdminError a call throws. */
async function refusal(call: () => Promise<unknown>): Promise<string> {
  const error = await call().then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(AdminError);
  return (error as AdminError).message;
}

describe('endpoint configuration', () => {
  it('creates, lists, updates and deletes endpoints, with whe_ ids and a generated whsec_ secret', async () => {
    const created = await api.admin.webhooks.create(ACCOUNT, { url: receiver.url });
    expect(created).toEqual({
      id: expect.stringMatching(/^whe_[0-9a-f]{24}$/),
      accountId: ACCOUNT,
      url: receiver.url,
      events: ['person.identified'],
      enabled: true,
      disabledReason: null,
      previousSecretExpiresAt: null,
      createdAt: '2026-11-21T12:00:00Z',
      updatedAt: '2026-11-21T12:00:00Z',
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const { secret, ...described } = created;
    expect(await api.admin.webhooks.list(ACCOUNT)).toEqual([described]);
    expect(JSON.stringify(await api.admin.webhooks.list(ACCOUNT))).not.toContain(secret);
    clock.advance(60);
    const updated = await api.admin.webhooks.update(created.id, { url: 'https://hooks.partner.example/in', events: ['person.activity', 'person.identified'], enabled: false });
    expect(updated).toMatchObject({ url: 'https://hooks.partner.example/in', events: ['person.identified', 'person.activity'], enabled: false, updatedAt: '2026-11-21T12:01:00Z' });
    expect(await api.admin.webhooks.get(created.id)).toEqual(updated);
    await api.admin.webhooks.delete(created.id);
    expect(await api.admin.webhooks.list(ACCOUNT)).toEqual([]);
    expect(await refusal(() => api.admin.webhooks.get(created.id))).toBe(`no webhook endpoint ${created.id}`);
  });

  it('refuses bad configuration with a message naming what is wrong', async () => {
    const create = (input: any) => refusal(() => api.admin.webhooks.create(ACCOUNT, input));
    expect(await create({ url: 'ftp://partner.example/in' })).toMatch(/^url must be an http or https URL/);
    expect(await create({ url: 'not a url' })).toMatch(/^url must be an http or https URL/);
    expect(await create({ url: 'javascript:alert(1)' })).toMatch(/^url must/);
    expect(await create({ url: receiver.url, secret: 'abc' })).toMatch(/^secret must be whsec_ followed by the base64 of 24 to 64 bytes/);
    expect(await create({ url: receiver.url, secret: 'whsec_!!!' })).toMatch(/^secret .*not base64/);
    expect(await create({ url: receiver.url, secret: `whsec_${btoa('short')}` })).toMatch(/^secret .*it encodes 5/);
    expect(await create({ url: receiver.url, secret: `whsec_${btoa('x'.repeat(65))}` })).toMatch(/^secret .*it encodes 65/);
    expect(await create({ url: receiver.url, events: 'person.activity' })).toMatch(/^events must be an array of event kinds/);
    expect(await create({ url: receiver.url, events: ['person.deleted'] })).toBe('events: "person.deleted" is not an event kind (person.identified, person.activity)');
    expect(await create({ url: receiver.url, events: ['person.activity', 'person.activity'] })).toBe('events names a kind twice');
    expect(await create({ url: receiver.url, enabled: 'yes' })).toBe('enabled must be true or false');
    expect(await refusal(() => api.admin.webhooks.create('acc_nobody', { url: receiver.url }))).toBe('no account acc_nobody');
    const { id, secret } = await api.admin.webhooks.create(ACCOUNT, { url: receiver.url });
    expect(await refusal(() => api.admin.webhooks.update(id, { url: 'mailto:a@b.example' }))).toMatch(/^url must/);
    expect(await refusal(() => api.admin.webhooks.rotateSecret(id, { secret }))).toBe('secret must differ from the current secret');
    expect(await refusal(() => api.admin.webhooks.rotateSecret(id, { overlapSeconds: -1 }))).toMatch(/^overlapSeconds must be an integer/);
    expect(await refusal(() => api.admin.webhooks.deliveries(id, { limit: 0 }))).toBe('limit must be an integer from 1 to 500');
    expect(await api.admin.webhooks.list(ACCOUNT)).toHaveLength(1);
  });
});

describe('event kinds', () => {
  it('always includes person.identified: events chooses only the opt-in person.activity', async () => {
    const activityOnly = await api.admin.webhooks.create(ACCOUNT, { url: receiver.url, events: ['person.activity'] });
    expect(activityOnly.events).toEqual(['person.identified', 'person.activity']);
    const none = await api.admin.webhooks.create(ACCOUNT, { url: receiver.url, events: [] });
    expect(none.events).toEqual(['person.identified']);
    expect((await api.admin.webhooks.update(none.id, { events: ['person.activity'] })).events).toEqual(['person.identified', 'person.activity']);
    expect((await api.admin.webhooks.update(activityOnly.id, { events: [] })).events).toEqual(['person.identified']);
  });

  it('sends person.identified to an endpoint created with person.activity alone', async () => {
    const { id } = await api.admin.webhooks.create(ACCOUNT, { url: receiver.url, events: ['person.activity'] });
    await api.admin.loadPeople(ACCOUNT, [person('per_ada', ['alpha.example'])]);
    await api.webhooks.deliverDue();
    expect(receiver.received.map((r) => r.json.event)).toEqual(['person.identified']);
    expect((await api.admin.webhooks.deliveries(id)).deliveries.map((d) => d.event)).toEqual(['person.identified']);
  });
});

describe('the delivery log', () => {
  it('lists each delivery with its attempts (time, status, latency, error, headers sent), newest first, and pages with before', async () => {
    const { id } = await api.admin.webhooks.create(ACCOUNT, { url: receiver.url });
    receiver.answers = [{ status: 500 }];
    await api.admin.loadPeople(ACCOUNT, [person('per_ada', ['alpha.example'])]);
    await api.admin.loadPeople(ACCOUNT, [person('per_bob', ['beta.example'])]);
    await api.webhooks.deliverDue();
    const page = await api.admin.webhooks.deliveries(id, { limit: 1 });
    expect(page.deliveries.map((d) => d.payload)).toMatchObject([{ data: { person: { id: 'per_bob' } } }]);
    const rest = await api.admin.webhooks.deliveries(id, { before: page.nextBefore });
    expect(rest.nextBefore).toBeUndefined();
    const [ada] = rest.deliveries;
    expect(ada).toMatchObject({ endpointId: id, event: 'person.identified', domain: 'alpha.example', clientRef: 'alpha', createdAt: '2026-11-21T12:00:00Z' });
    const bob = page.deliveries[0]!;
    const failedFirst = ada!.status === 'pending' ? ada! : bob;
    const [sent] = receiver.withId(failedFirst.id);
    expect(failedFirst.attempts).toEqual([{ at: '2026-11-21T12:00:00Z', status: 500, latencyMs: expect.any(Number), error: 'the receiver answered HTTP 500', headers: {
      'content-type': 'application/json',
      'webhook-id': failedFirst.id,
      'webhook-timestamp': '1795262400',
      'webhook-signature': sent!.headers['webhook-signature'],
    } }]);
    expect((await api.admin.webhooks.deliveries(id, { status: 'pending' })).deliveries.map((d) => d.id)).toEqual([failedFirst.id]);
  });

  it('shows each payload as its last attempt sent it, timestamp included, however much later the log is read', async () => {
    const { id } = await api.admin.webhooks.create(ACCOUNT, { url: receiver.url });
    receiver.answers = [{ status: 500 }];
    await api.admin.loadPeople(ACCOUNT, [person('per_ada', ['alpha.example'])]);
    await api.webhooks.deliverDue();
    clock.advance(3600);
    const [failed] = (await api.admin.webhooks.deliveries(id)).deliveries;
    expect(failed!.payload).toEqual(receiver.received[0]!.json);
    expect(failed!.payload).toMatchObject({ timestamp: '2026-11-21T12:00:00Z' });
    await api.webhooks.deliverDue();
    clock.advance(86_400);
    const delivered = await api.admin.webhooks.delivery(failed!.id);
    expect(delivered.status).toBe('delivered');
    expect(delivered.payload).toEqual(receiver.received[1]!.json);
    expect(delivered.payload).toMatchObject({ timestamp: '2026-11-21T13:00:00Z' });
    // Not sent yet: the body it is due to carry, whenever the log is read.
    receiver.fallback = { status: 200 };
    await api.admin.loadPeople(ACCOUNT, [person('per_bob', ['beta.example'])]);
    const [due] = (await api.admin.webhooks.deliveries(id, { status: 'pending' })).deliveries;
    clock.advance(60);
    expect((await api.admin.webhooks.delivery(due!.id)).payload).toEqual(due!.payload);
    expect(due!.payload).toMatchObject({ timestamp: due!.nextAttemptAt, data: { person: { id: 'per_bob' } } });
  });

  it('redelivers a failed delivery with the same webhook-id and a fresh schedule; other deliveries cannot be redelivered', async () => {
    const { id, secret } = await api.admin.webhooks.create(ACCOUNT, { url: receiver.url });
    receiver.fallback = { status: 500 };
    await api.admin.loadPeople(ACCOUNT, [person('per_ada', ['alpha.example'])]);
    const deliveryId = (await api.admin.webhooks.deliveries(id)).deliveries[0]!.id;
    expect(await refusal(() => api.admin.webhooks.redeliver(deliveryId))).toBe(`delivery ${deliveryId} is pending; only a failed delivery can be redelivered`);
    for (let i = 0; i < 12; i++) {
      clock.advance(86_400);
      await api.webhooks.deliverDue();
    }
    expect((await api.admin.webhooks.delivery(deliveryId)).status).toBe('failed');
    receiver.fallback = { status: 200 };
    const requeued = await api.admin.webhooks.redeliver(deliveryId);
    expect(requeued).toMatchObject({ status: 'pending', nextAttemptAt: expect.any(String) });
    await api.webhooks.deliverDue();
    const done = await api.admin.webhooks.delivery(deliveryId);
    expect(done.status).toBe('delivered');
    expect(done.attempts).toHaveLength(11);
    const last = receiver.received.at(-1)!;
    expect(last.headers['webhook-id']).toBe(deliveryId);
    expect(verifyAt(secret, last, clock.now())).toBeTruthy();
    expect(await refusal(() => api.admin.webhooks.redeliver(deliveryId))).toMatch(/is delivered/);
    expect(await refusal(() => api.admin.webhooks.redeliver('msg_nope'))).toBe('no webhook delivery msg_nope');
  });
});

describe('background sending', () => {
  it('sends a load’s deliveries without being asked, while the API keeps answering', async () => {
    await api.close();
    ({ api, clock, accountKey } = await hookedApi({ webhooks: { background: true } }));
    await api.admin.webhooks.create(ACCOUNT, { url: receiver.url });
    await api.admin.loadPeople(ACCOUNT, [person('per_ada', ['alpha.example'])]);
    const client = clientFor((await inProcess.start(api)).call);
    expect((await client.get('/v1/people/per_ada', accountKey)).status).toBe(200);
    const deadline = Date.now() + 10_000;
    while (receiver.received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(receiver.received.map((r) => r.json.data.person.id)).toEqual(['per_ada']);
  });

  it('keeps at most the configured number of requests in flight to a receiver that does not answer, while reads are still answered', async () => {
    await api.close();
    ({ api, clock, accountKey } = await hookedApi({ webhooks: { background: true, concurrencyPerEndpoint: 2 } }));
    receiver.fallback = 'hang';
    await api.admin.webhooks.create(ACCOUNT, { url: receiver.url });
    await api.admin.loadPeople(ACCOUNT, ['a', 'b', 'c', 'd', 'e'].map((s) => person(`per_${s}`, ['alpha.example'])));
    while (receiver.received.length < 2) await new Promise((r) => setTimeout(r, 10));
    const client = clientFor((await inProcess.start(api)).call);
    const list = await client.get('/v1/people', accountKey);
    expect(list.body.data).toHaveLength(5);
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.received).toHaveLength(2);
  });
});

describe('a long outbox', () => {
  it('is sent in full with never more requests in flight to an endpoint than its bound', async () => {
    await api.close();
    ({ api, clock, accountKey } = await hookedApi({ webhooks: { concurrencyPerEndpoint: 3 } }));
    const { id } = await api.admin.webhooks.create(ACCOUNT, { url: receiver.url });
    receiver.fallback = { status: 200, delayMs: 2 };
    await api.admin.loadPeople(ACCOUNT, Array.from({ length: 300 }, (_, i) => person(`per_${i}`, ['alpha.example'])));
    await api.webhooks.deliverDue();
    expect(new Set(receiver.received.map((r) => r.json.data.person.id)).size).toBe(300);
    expect(receiver.received).toHaveLength(300);
    expect(receiver.maxInFlight).toBeLessThanOrEqual(3);
    expect(receiver.maxInFlight).toBeGreaterThan(1);
    expect((await api.admin.webhooks.deliveries(id, { status: 'pending' })).deliveries).toEqual([]);
  });
});

describe('log retention', () => {
  it('drops delivered and failed deliveries 30 days after their last attempt, keeping pending ones', async () => {
    const { id } = await api.admin.webhooks.create(ACCOUNT, { url: receiver.url });
    await api.admin.loadPeople(ACCOUNT, [person('per_ada', ['alpha.example'])]);
    await api.webhooks.deliverDue();
    const [delivered] = (await api.admin.webhooks.deliveries(id)).deliveries;
    receiver.fallback = { status: 500 };
    clock.advance(29 * 86_400);
    await api.admin.loadPeople(ACCOUNT, [person('per_bob', ['alpha.example'])]);
    await api.webhooks.deliverDue();
    clock.advance(86_400 - 1);
    await api.webhooks.deliverDue();
    expect((await api.admin.webhooks.delivery(delivered!.id)).status).toBe('delivered');
    clock.advance(3600);
    await api.webhooks.deliverDue();
    expect(await refusal(() => api.admin.webhooks.delivery(delivered!.id))).toBe(`no webhook delivery ${delivered!.id}`);
    expect((await api.admin.webhooks.deliveries(id)).deliveries.map((d) => [d.payload, d.status])).toMatchObject([[{ data: { person: { id: 'per_bob' } } }, 'pending']]);
  });
});
