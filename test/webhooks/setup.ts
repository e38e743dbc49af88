import { Webhook } from 'standardwebhooks';
import { expect, vi } from 'vitest';
import { createApi, ManualClock, type Api, type ApiOptions } from '../../adapters/node/index.ts';
import { ACCOUNT, NOW, SITES } from './fixtures.ts';
import type { Received } from './receiver.ts';

export { ACCOUNT, event, NOW, person, SITES } from './fixtures.ts';

/**
 * An API with one account and three sites, sending only when the test calls `deliverDue`. Its
 * claims run on `leaseClock`, which stands still at real time (where a process's leases are) until moved.
 */
export async function hookedApi(options: Partial<Pick<ApiOptions, 'webhooks'>> & { database?: string } = {}): Promise<{ api: Api; clock: ManualClock; leaseClock: ManualClock; accountKey: string }> {
  const clock = new ManualClock(NOW);
  const leaseClock = new ManualClock(Date.now());
  const api = await createApi({
    database: options.database ?? ':memory:',
    clock,
    leaseClock,
    onError: (e) => console.error(e),
    webhooks: { background: false, random: () => 0, ...options.webhooks },
  });
  if (!(await api.admin.hasAccount(ACCOUNT))) {
    await api.admin.createAccount({ id: ACCOUNT, name: 'Hooked partner' });
    for (const site of SITES) await api.admin.registerSite(ACCOUNT, site);
  }
  const accountKey = (await api.admin.issueAccountKey(ACCOUNT)).key;
  // Remember every secret the tests are given, so that every delivery can be checked against them.
  const hooks = api.admin.webhooks;
  const [create, rotate] = [hooks.create.bind(hooks), hooks.rotateSecret.bind(hooks)];
  hooks.create = async (...args) => remember(await create(...args));
  hooks.rotateSecret = async (...args) => remember(await rotate(...args));
  return { api, clock, leaseClock, accountKey };
}

/** Every secret an endpoint was created or rotated with in this test file. */
const issuedSecrets = new Set<string>();
function remember<T extends { secret: string }>(endpoint: T): T {
  issuedSecrets.add(endpoint.secret);
  return endpoint;
}

/**
 * Fails unless every delivery the receiver got verifies with the reference verifier under a secret
 * the tests were given (each at its own timestamp: staleness is tested on its own).
 */
export function expectAllGenuine(receiver: { received: Received[] }): void {
  const forged = receiver.received.filter((got) => {
    const at = Number(got.headers['webhook-timestamp']) * 1000;
    return ![...issuedSecrets].some((secret) => {
      try {
        verifyAt(secret, got, at);
        return true;
      } catch {
        return false;
      }
    });
  });
  expect(forged.map((got) => got.headers['webhook-id'])).toEqual([]);
}

/**
 * Verifies a received delivery with the reference `standardwebhooks` verifier, as a receiver
 * whose clock reads `atMs` would (the verifier rejects timestamps more than 5 minutes off its own now).
 */
export function verifyAt(secret: string, received: Received, atMs: number): unknown {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(atMs);
  try {
    return new Webhook(secret).verify(received.body, received.headers);
  } finally {
    vi.useRealTimers();
  }
}
