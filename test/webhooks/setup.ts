import { Webhook } from 'standardwebhooks';
import { vi } from 'vitest';
import { createApi, ManualClock, type Api, type ApiOptions } from '../../adapters/node/index.ts';
import { ACCOUNT, NOW, SITES } from './fixtures.ts';
import type { Received } from './receiver.ts';

export { ACCOUNT, event, NOW, person, SITES } from './fixtures.ts';

/** An API with one account and three sites, sending only when the test calls `deliverDue`. */
export async function hookedApi(options: Partial<Pick<ApiOptions, 'webhooks'>> & { database?: string } = {}): Promise<{ api: Api; clock: ManualClock; accountKey: string }> {
  const clock = new ManualClock(NOW);
  const api = await createApi({
    database: options.database ?? ':memory:',
    clock,
    onError: (e) => console.error(e),
    webhooks: { background: false, random: () => 0, ...options.webhooks },
  });
  if (!(await api.admin.hasAccount(ACCOUNT))) {
    await api.admin.createAccount({ id: ACCOUNT, name: 'Hooked partner' });
    for (const site of SITES) await api.admin.registerSite(ACCOUNT, site);
  }
  const accountKey = (await api.admin.issueAccountKey(ACCOUNT)).key;
  return { api, clock, accountKey };
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
