/** The account, sites, people and events the webhook tests load (no test-runner imports: the crash test's child uses them too). */
import type { EventInput, PersonInput } from '../../adapters/node/index.ts';

/** "Now" in these tests. */
export const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
export const SITES = [
  { domain: 'alpha.example', clientRef: 'alpha' },
  { domain: 'beta.example', clientRef: 'beta' },
  { domain: 'gamma.example', clientRef: null },
] as const;
export const ACCOUNT = 'acc_hooks';

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
