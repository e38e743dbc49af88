import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, RETRY_SCHEDULE_SECONDS, type Api, type ManualClock } from '../../adapters/node/index.ts';
import { Receiver } from './receiver.ts';
import { ACCOUNT, expectAllGenuine, hookedApi, person, verifyAt } from './setup.ts';

let receiver: Receiver | undefined;
let api: Api | undefined;
afterEach(async () => {
  if (receiver) expectAllGenuine(receiver);
  await api?.close();
  await receiver?.close();
  api = receiver = undefined;
});

/** An API with one endpoint at `url` and one person loaded: one `person.identified` delivery waiting. */
async function oneDelivery(url: string, webhooks = {}) {
  const made = await hookedApi({ webhooks });
  api = made.api;
  const endpoint = await made.api.admin.webhooks.create(ACCOUNT, { url });
  await made.api.admin.loadPeople(ACCOUNT, [person('per_ada', ['alpha.example'])]);
  const [delivery] = (await made.api.admin.webhooks.deliveries(endpoint.id)).deliveries;
  return { ...made, endpoint, deliveryId: delivery!.id };
}

/** Moves the clock and sends what fell due. */
async function after(api: Api, clock: ManualClock, seconds: number) {
  clock.advance(seconds);
  await api.webhooks.deliverDue();
}

describe('retries', () => {
  it('retries a receiver that was down once it is up, 5 seconds later, with the same webhook-id, and verifies', async () => {
    receiver = await Receiver.start(await Receiver.downPort());
    await receiver.close();
    const { api, clock, endpoint, deliveryId } = await oneDelivery(receiver.url);
    await api.webhooks.deliverDue();
    let log = await api.admin.webhooks.delivery(deliveryId);
    expect(log).toMatchObject({ status: 'pending', nextAttemptAt: '2026-11-21T12:00:05Z', attempts: [{ at: '2026-11-21T12:00:00Z', status: null, error: expect.stringMatching(/fetch failed|refused|ECONNREFUSED|Unable to connect/i) }] });
    await receiver.listen();
    await after(api, clock, 4);
    expect(receiver.received).toHaveLength(0);
    await after(api, clock, 1);
    expect(receiver.withId(deliveryId)).toHaveLength(1);
    expect(verifyAt(endpoint.secret, receiver.received[0]!, clock.now())).toMatchObject({ webhookId: deliveryId, timestamp: '2026-11-21T12:00:05Z' });
    log = await api.admin.webhooks.delivery(deliveryId);
    expect(log).toMatchObject({ status: 'delivered', nextAttemptAt: null });
    expect(log.attempts.map((a) => [a.at, a.status])).toEqual([
      ['2026-11-21T12:00:00Z', null],
      ['2026-11-21T12:00:05Z', 200],
    ]);
  });

  it('treats only 2xx as success: a 500 and a redirect are retried on the schedule, then a 204 delivers', async () => {
    receiver = await Receiver.start();
    receiver.answers = [{ status: 500 }, { status: 302, headers: { location: 'http://127.0.0.1:1/' } }, { status: 204 }];
    const { api, clock, deliveryId } = await oneDelivery(receiver.url);
    await api.webhooks.deliverDue();
    await after(api, clock, 5);
    await after(api, clock, 299);
    expect(receiver.received).toHaveLength(2);
    await after(api, clock, 1);
    const log = await api.admin.webhooks.delivery(deliveryId);
    expect(log.status).toBe('delivered');
    expect(log.attempts.map((a) => [a.status, a.error])).toEqual([
      [500, 'the receiver answered HTTP 500'],
      [302, 'the receiver answered HTTP 302'],
      [204, null],
    ]);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id']))).toEqual(new Set([deliveryId]));
  });

  it('follows the whole Standard Webhooks schedule, then marks the delivery failed', async () => {
    receiver = await Receiver.start();
    receiver.fallback = { status: 503 };
    const { api, clock, deliveryId } = await oneDelivery(receiver.url);
    await api.webhooks.deliverDue();
    for (const wait of RETRY_SCHEDULE_SECONDS.slice(1)) {
      await after(api, clock, wait - 1);
      const before = receiver.received.length;
      await after(api, clock, 1);
      expect(receiver.received.length).toBe(before + 1);
    }
    const log = await api.admin.webhooks.delivery(deliveryId);
    expect(log).toMatchObject({ status: 'failed', nextAttemptAt: null });
    expect(log.attempts).toHaveLength(MAX_ATTEMPTS);
    await after(api, clock, 7 * 86_400);
    expect(receiver.received).toHaveLength(MAX_ATTEMPTS);
  });

  it('adds jitter to a retry, never sending it sooner than the schedule', async () => {
    receiver = await Receiver.start();
    receiver.answers = [{ status: 500 }, { status: 500 }];
    const { api, clock, deliveryId } = await oneDelivery(receiver.url, { random: () => 0.999 });
    await api.webhooks.deliverDue();
    await after(api, clock, 5);
    expect(receiver.received).toHaveLength(2);
    // The third attempt is 5 minutes plus up to 10 %: with this jitter source, 329 seconds later.
    expect((await api.admin.webhooks.delivery(deliveryId)).nextAttemptAt).toBe('2026-11-21T12:05:34Z');
    await after(api, clock, 328);
    expect(receiver.received).toHaveLength(2);
    await after(api, clock, 1);
    expect(receiver.received).toHaveLength(3);
  });

  it('honours Retry-After on 429, in seconds, when it asks for longer than the schedule', async () => {
    receiver = await Receiver.start();
    receiver.answers = [{ status: 429, headers: { 'retry-after': '120' } }];
    const { api, clock, deliveryId } = await oneDelivery(receiver.url);
    await api.webhooks.deliverDue();
    await after(api, clock, 119);
    expect(receiver.received).toHaveLength(1);
    await after(api, clock, 1);
    expect(receiver.received).toHaveLength(2);
    expect((await api.admin.webhooks.delivery(deliveryId)).attempts.map((a) => a.status)).toEqual([429, 200]);
  });

  it('honours Retry-After on 503 as an HTTP date, and never retries sooner than the schedule for a shorter one', async () => {
    receiver = await Receiver.start();
    const { api, clock, deliveryId } = await oneDelivery(receiver.url);
    receiver.answers = [{ status: 503, headers: { 'retry-after': new Date(clock.now() + 600_000).toUTCString() } }, { status: 503, headers: { 'retry-after': '1' } }];
    await api.webhooks.deliverDue();
    await after(api, clock, 599);
    expect(receiver.received).toHaveLength(1);
    await after(api, clock, 1);
    expect(receiver.received).toHaveLength(2);
    // Retry-After: 1 after the second attempt: the schedule's 5 minutes still apply.
    await after(api, clock, 299);
    expect(receiver.received).toHaveLength(2);
    await after(api, clock, 1);
    expect((await api.admin.webhooks.delivery(deliveryId)).status).toBe('delivered');
  });

  it('disables the endpoint on 410: nothing more is sent until it is enabled again, and then what waited goes out', async () => {
    receiver = await Receiver.start();
    receiver.answers = [{ status: 410 }];
    const { api, clock, endpoint, deliveryId } = await oneDelivery(receiver.url);
    await api.webhooks.deliverDue();
    const disabled = await api.admin.webhooks.get(endpoint.id);
    expect(disabled).toMatchObject({ enabled: false, disabledReason: expect.stringContaining('410') });
    await api.admin.loadPeople(ACCOUNT, [person('per_bob', ['beta.example'])]);
    await after(api, clock, 86_400);
    expect(receiver.received).toHaveLength(1);
    expect(await api.admin.webhooks.delivery(deliveryId)).toMatchObject({ status: 'pending', attempts: [{ status: 410, error: expect.stringContaining('disabled') }] });

    expect(await api.admin.webhooks.update(endpoint.id, { enabled: true })).toMatchObject({ enabled: true, disabledReason: null });
    await api.webhooks.deliverDue();
    expect(receiver.withId(deliveryId)).toHaveLength(2);
    // per_bob was loaded while the endpoint was disabled: no delivery was written for it.
    expect(receiver.received.map((r) => r.json.data.person.id)).toEqual(['per_ada', 'per_ada']);
  });

  it('gives up on a receiver that does not answer within the request timeout and retries later', async () => {
    receiver = await Receiver.start();
    receiver.answers = ['hang'];
    const { api, clock, deliveryId } = await oneDelivery(receiver.url, { requestTimeoutMs: 200 });
    await api.webhooks.deliverDue();
    const log = await api.admin.webhooks.delivery(deliveryId);
    expect(log).toMatchObject({ status: 'pending', attempts: [{ status: null, error: 'timed out after 200 ms' }] });
    await after(api, clock, 5);
    expect((await api.admin.webhooks.delivery(deliveryId)).status).toBe('delivered');
  });

  it('cuts a request off when the API closes, without counting an attempt, and sends it again on the next start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vi-hooks-close-'));
    try {
      const database = join(dir, 'close.sqlite');
      receiver = await Receiver.start();
      receiver.answers = ['hang'];
      const first = await hookedApi({ database });
      const endpoint = await first.api.admin.webhooks.create(ACCOUNT, { url: receiver.url });
      await first.api.admin.loadPeople(ACCOUNT, [person('per_ada', ['alpha.example'])]);
      const sending = first.api.webhooks.deliverDue();
      while (receiver.received.length === 0) await new Promise((r) => setTimeout(r, 5));
      await first.api.close();
      await sending;
      const second = await hookedApi({ database });
      api = second.api;
      const [delivery] = (await api.admin.webhooks.deliveries(endpoint.id)).deliveries;
      expect(delivery).toMatchObject({ status: 'pending', attempts: [] });
      await api.webhooks.deliverDue();
      expect(receiver.withId(delivery!.id)).toHaveLength(2);
      expect((await api.admin.webhooks.delivery(delivery!.id)).attempts.map((a) => a.status)).toEqual([200]);
    } finally {
      await api?.close();
      api = undefined;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
