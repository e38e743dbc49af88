import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateWebhookSecret, verifyWebhook, type Api, type ManualClock } from '../../adapters/node/index.ts';
import { Receiver, type Received } from './receiver.ts';
import { ACCOUNT, expectAllGenuine, hookedApi, person, verifyAt } from './setup.ts';

let receiver: Receiver;
let api: Api;
let clock: ManualClock;
beforeEach(async () => {
  receiver = await Receiver.start();
  ({ api, clock } = await hookedApi());
});
afterEach(async () => {
  expectAllGenuine(receiver);
  await api.close();
  await receiver.close();
});

/** Loads a new person and returns the delivery the receiver got for them. */
async function deliveryFor(id: string): Promise<Received> {
  await api.admin.loadPeople(ACCOUNT, [person(id, ['alpha.example'])]);
  await api.webhooks.deliverDue();
  const got = receiver.received.filter((r) => r.json?.data?.person?.id === id);
  expect(got).toHaveLength(1);
  return got[0]!;
}

describe('signatures', () => {
  it('carry the Standard Webhooks headers and verify with the reference verifier', async () => {
    const { secret } = await api.admin.webhooks.create(ACCOUNT, { url: receiver.url });
    clock.advance(90);
    const got = await deliveryFor('per_ada');
    expect(got.headers).toMatchObject({
      'content-type': 'application/json',
      'webhook-id': expect.stringMatching(/^msg_[0-9a-f]{24}$/),
      'webhook-timestamp': String(clock.now() / 1000),
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
    });
    expect(verifyAt(secret, got, clock.now())).toMatchObject({ webhookId: got.headers['webhook-id'], event: 'person.identified' });
  });

  it('fail verification for a tampered body, an old timestamp or a wrong secret', async () => {
    const { secret } = await api.admin.webhooks.create(ACCOUNT, { url: receiver.url });
    const got = await deliveryFor('per_ada');
    const tampered = { ...got, body: got.body.replace('per_ada', 'per_eve') };
    expect(() => verifyAt(secret, tampered, clock.now())).toThrow(/signature/i);
    expect(() => verifyAt(secret, got, clock.now() + 10 * 60_000)).toThrow(/too old/i);
    expect(() => verifyAt(generateWebhookSecret(), got, clock.now())).toThrow(/signature/i);
    const forgedTime = { ...got, headers: { ...got.headers, 'webhook-timestamp': String(clock.now() / 1000 + 1) } };
    expect(() => verifyAt(secret, forgedTime, clock.now())).toThrow(/signature/i);
  });

  it('use a given secret as given', async () => {
    const secret = `whsec_${btoa('a'.repeat(24))}`;
    await api.admin.webhooks.create(ACCOUNT, { url: receiver.url, secret });
    expect(verifyAt(secret, await deliveryFor('per_ada'), clock.now())).toBeTruthy();
  });
});

describe('secret rotation', () => {
  it('signs with both secrets during the overlap, so receivers holding either verify, and only with the new one after it', async () => {
    const created = await api.admin.webhooks.create(ACCOUNT, { url: receiver.url });
    const rotated = await api.admin.webhooks.rotateSecret(created.id, { overlapSeconds: 3600 });
    expect(rotated.secret).not.toBe(created.secret);
    expect(rotated.previousSecretExpiresAt).toBe('2026-11-21T13:00:00Z');

    clock.advance(3599);
    const during = await deliveryFor('per_ada');
    expect(during.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verifyAt(created.secret, during, clock.now())).toBeTruthy();
    expect(verifyAt(rotated.secret, during, clock.now())).toBeTruthy();

    clock.advance(1);
    const after = await deliveryFor('per_bob');
    expect(after.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(verifyAt(rotated.secret, after, clock.now())).toBeTruthy();
    expect(() => verifyAt(created.secret, after, clock.now())).toThrow(/signature/i);
    expect((await api.admin.webhooks.get(created.id)).previousSecretExpiresAt).toBeNull();
  });

  it('keeps the old secret for 24 hours by default, and a retry after the overlap carries only the new signature', async () => {
    const created = await api.admin.webhooks.create(ACCOUNT, { url: receiver.url });
    receiver.answers = [{ status: 500 }];
    const rotated = await api.admin.webhooks.rotateSecret(created.id);
    expect(rotated.previousSecretExpiresAt).toBe('2026-11-22T12:00:00Z');
    await api.admin.loadPeople(ACCOUNT, [person('per_ada', ['alpha.example'])]);
    await api.webhooks.deliverDue();
    clock.advance(86_400);
    await api.webhooks.deliverDue();
    const [first, retry] = receiver.received;
    expect(retry!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(verifyAt(created.secret, first!, Date.UTC(2026, 10, 21, 12))).toBeTruthy();
    expect(verifyAt(rotated.secret, retry!, clock.now())).toBeTruthy();
    expect(() => verifyAt(created.secret, retry!, clock.now())).toThrow(/signature/i);
  });
});

describe('verifyWebhook, the exported verifier for receivers without the standardwebhooks package', () => {
  const secret = generateWebhookSecret();
  const body = '{"webhookId":"msg_1","event":"person.identified"}';
  const at = new Date(Date.UTC(2026, 10, 21, 12));
  const seconds = at.getTime() / 1000;
  /** Headers as the reference implementation signs them. */
  const signedByReference = (s = secret, text = body) => ({ 'webhook-id': 'msg_1', 'webhook-timestamp': String(seconds), 'webhook-signature': new Webhook(s).sign('msg_1', at, text) });

  it('accepts what the reference implementation signs, with either of two secrets, and returns the payload', async () => {
    expect(await verifyWebhook([secret], signedByReference(), body, seconds + 299)).toEqual({ ok: true, payload: { webhookId: 'msg_1', event: 'person.identified' } });
    const other = generateWebhookSecret();
    const both = { ...signedByReference(), 'webhook-signature': `${signedByReference(other)['webhook-signature']} ${signedByReference()['webhook-signature']}` };
    expect(await verifyWebhook([secret], both, body, seconds)).toMatchObject({ ok: true });
    expect(await verifyWebhook([other], new Headers(both), body, seconds)).toMatchObject({ ok: true });
  });

  it('refuses a tampered body, a wrong secret, an old or future timestamp and missing headers, saying why', async () => {
    expect(await verifyWebhook([secret], signedByReference(), body.replace('msg_1', 'msg_2'), seconds)).toEqual({ ok: false, reason: 'no signature matches the secret' });
    expect(await verifyWebhook([generateWebhookSecret()], signedByReference(), body, seconds)).toEqual({ ok: false, reason: 'no signature matches the secret' });
    expect(await verifyWebhook([secret], signedByReference(), body, seconds + 301)).toEqual({ ok: false, reason: 'webhook-timestamp is 301 s old (tolerance 300 s)' });
    expect(await verifyWebhook([secret], signedByReference(), body, seconds - 400)).toEqual({ ok: false, reason: 'webhook-timestamp is 400 s in the future (tolerance 300 s)' });
    const { 'webhook-signature': _, ...unsigned } = signedByReference();
    expect(await verifyWebhook([secret], unsigned, body, seconds)).toEqual({ ok: false, reason: 'missing webhook-id, webhook-timestamp or webhook-signature' });
  });
});
