import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApi, ManualClock, type Api } from '../../adapters/node/index.ts';
import { configureEndpoint } from '../../scripts/webhooks/serve-flags.ts';
import { Receiver } from '../webhooks/receiver.ts';

const ACCOUNT = 'acc_demo';
const FIRST = `whsec_${btoa('1'.repeat(32))}`;
const SECOND = `whsec_${btoa('2'.repeat(32))}`;

let api: Api;
let receiver: Receiver;
beforeEach(async () => {
  receiver = await Receiver.start();
  api = await createApi({ database: ':memory:', clock: new ManualClock(Date.now()), webhooks: { background: false, random: () => 0 } });
  await api.admin.createAccount({ id: ACCOUNT, name: 'Demo' });
  await api.admin.registerSite(ACCOUNT, { domain: 'alpha.example', clientRef: 'alpha' });
});
afterEach(async () => {
  await api.close();
  await receiver.close();
});

/** Loads a new person and returns the deliveries that reach the receiver. */
async function deliverOne(id: string) {
  const now = api.clock.now();
  await api.admin.loadPeople(ACCOUNT, [{ id, visits: [{ domain: 'alpha.example', visitCount: 1, firstSeen: now, lastSeen: now }] }]);
  await api.webhooks.deliverDue();
  return receiver.received.filter((r) => r.json.data.person.id === id);
}

describe("serve's endpoint for --webhook-url", () => {
  it('creates it on the first start and updates the same one on the next, signing with the secret given then', async () => {
    const first = await configureEndpoint(api, ACCOUNT, { webhookUrl: receiver.url, webhookSecret: FIRST, webhookEvents: ['person.identified'] });
    expect(first).toMatchObject({ url: receiver.url, events: ['person.identified'] });
    expect(first!.generatedSecret).toBeUndefined();
    const [a] = await deliverOne('per_a');
    expect(new Webhook(FIRST).verify(a!.body, a!.headers)).toEqual(a!.json);

    await api.admin.webhooks.update(first!.id, { enabled: false });
    const second = await configureEndpoint(api, ACCOUNT, { webhookUrl: receiver.url, webhookSecret: SECOND });
    expect(second).toMatchObject({ id: first!.id, events: ['person.identified', 'person.activity'] });
    expect(await api.admin.webhooks.list(ACCOUNT)).toMatchObject([{ id: first!.id, enabled: true, previousSecretExpiresAt: null }]);
    const [b] = await deliverOne('per_b');
    expect(new Webhook(SECOND).verify(b!.body, b!.headers)).toEqual(b!.json);
    expect(() => new Webhook(FIRST).verify(b!.body, b!.headers)).toThrow();

    // The same secret again changes nothing.
    await configureEndpoint(api, ACCOUNT, { webhookUrl: receiver.url, webhookSecret: SECOND });
    const [c] = await deliverOne('per_c');
    expect(new Webhook(SECOND).verify(c!.body, c!.headers)).toEqual(c!.json);
  });

  it('generates a secret when none is given, and returns it to be printed', async () => {
    const made = await configureEndpoint(api, ACCOUNT, { webhookUrl: receiver.url });
    expect(made!.generatedSecret).toMatch(/^whsec_/);
    const [a] = await deliverOne('per_a');
    expect(new Webhook(made!.generatedSecret!).verify(a!.body, a!.headers)).toEqual(a!.json);
    expect(await configureEndpoint(api, ACCOUNT, {})).toBeUndefined();
  });
});
