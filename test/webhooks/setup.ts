import { Webhook } from 'standardwebhooks';
import { vi } from 'vitest';
import { createApi, ManualClock, type Api, type ApiOptions, type EventInput, type PersonInput } from '../../adapters/node/index.ts';
import type { Received } from './receiver.ts';

/** "Now" in these tests. */
export const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
export const SITES = [
  { domain: 'alpha.example', clientRef: 'alpha' },
  { domain: 'beta.example', clientRef: 'beta' },
  { domain: 'gamma.example', clientRef: null },
] as const;
export const ACCOUNT = 'acc_hooks';

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

/** A person seen on the given sites, the last one latest. */
export function person(id: string, domains: string[], extra: Partial<PersonInput> = {}): PersonInput {
  return {
    id,
    email: `${id}@mail.example`,
    firstName: 'Ada',
    lastName: 'Lovelace',
    visits: domains.map((domain, i) => ({ domain, visitCount: i + 1, firstSeen: new Date(NOW - 86_400_000 * (10 - i)), lastSeen: new Date(NOW - 3_600_000 * (domains.length - i)) })),
    ...extra,
  };
}

/** An event of a person on a site, `minute` minutes before NOW. */
export function event(id: string, personId: string, domain: string, minute: number, extra: Partial<EventInput> = {}): EventInput {
  return { eventId: id, personId, sessionId: 'ses_1', eventType: 'page_view', timestamp: new Date(NOW - minute * 60_000), url: `https://${domain}/p/${id}`, domain, pageTitle: `Page ${id}`, ...extra };
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
