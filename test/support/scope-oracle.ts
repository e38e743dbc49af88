import type { EventInput, PersonInput } from '../../adapters/node/index.ts';
import { NOW, seconds, SITES, type World } from './world.ts';

/**
 * What a domain-scoped key should read, computed from what the fixture loaded: the scope is the
 * `domain` filter applied with the key's domain (the domain and its subdomains, never a
 * look-alike), and a person's or company's figures under it are over those sites only. Written
 * from the spec, not from the core, so it checks the core rather than repeating it.
 */

export const DOMAINS = SITES.map((s) => s.domain);
const HOUR = 3_600_000;
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();
/** Epoch seconds as the API renders them. */
export const isoS = (s: number): string => new Date(s * 1000).toISOString().slice(0, 19) + 'Z';

/** Whether `domain` is `filter` or one of its subdomains, as the spec's `domain` filter reads. */
export function within(domain: string, filter: string): boolean {
  return domain === filter || domain.endsWith(`.${filter}`);
}

/** The sites a key issued for `domain` reads. */
export function scopeOf(domain: string): string[] {
  return DOMAINS.filter((d) => within(d, domain));
}

/** The sites among `sites` that the client filters select (`domain` already normalised). */
export function narrow(sites: readonly string[], filters: { domain?: string | null; clientRef?: string | null }): string[] {
  return sites.filter((d) => (filters.domain == null || within(d, filters.domain)) && (filters.clientRef == null || SITES.find((s) => s.domain === d)!.clientRef === filters.clientRef));
}

/** Sites are registered in SITES order, so a later one has the higher key: it wins a lastSeen tie. */
const rank = (domain: string) => DOMAINS.indexOf(domain as (typeof DOMAINS)[number]);

/** A person's figures and attribution over some sites, or undefined when they visited none of them. */
export function figuresIn(person: PersonInput, sites: readonly string[]) {
  const visits = person.visits.filter((v) => sites.includes(v.domain));
  if (visits.length === 0) return undefined;
  const latest = [...visits].sort((a, b) => seconds(b.lastSeen) - seconds(a.lastSeen) || rank(b.domain) - rank(a.domain))[0]!;
  return {
    domain: latest.domain,
    clientRef: SITES.find((s) => s.domain === latest.domain)!.clientRef as string | null,
    visitCount: visits.reduce((n, v) => n + v.visitCount, 0),
    firstSeen: isoS(Math.min(...visits.map((v) => seconds(v.firstSeen)))),
    lastSeen: isoS(Math.max(...visits.map((v) => seconds(v.lastSeen)))),
  };
}

/** The people seen on any of the sites, in list order: their lastSeen there descending, then id descending. */
export function peopleIn(world: World, sites: readonly string[]): PersonInput[] {
  const last = (p: PersonInput) => figuresIn(p, sites)!.lastSeen;
  return world.people.filter((p) => figuresIn(p, sites)).sort((a, b) => (last(a) < last(b) ? 1 : last(a) > last(b) ? -1 : a.id < b.id ? 1 : -1));
}

/** Companies with a person on any of the sites, with their people's figures there, in list order. */
export function companiesIn(world: World, sites: readonly string[]) {
  const byId = new Map<string, { id: string; visitCount: number; first: number; last: number }>();
  for (const p of world.people) {
    if (!p.companyId) continue;
    for (const v of p.visits.filter((v) => sites.includes(v.domain))) {
      const c = byId.get(p.companyId) ?? { id: p.companyId, visitCount: 0, first: Infinity, last: -Infinity };
      c.visitCount += v.visitCount;
      c.first = Math.min(c.first, seconds(v.firstSeen));
      c.last = Math.max(c.last, seconds(v.lastSeen));
      byId.set(p.companyId, c);
    }
  }
  return [...byId.values()]
    .sort((a, b) => b.last - a.last || (a.id < b.id ? 1 : -1))
    .map((c) => ({ id: c.id, visitCount: c.visitCount, firstSeen: isoS(c.first), lastSeen: isoS(c.last) }));
}

/** A person's events on the sites, in journey order: timestamp descending, then eventId descending. */
export function journeyIn(world: World, personId: string, sites: readonly string[]): EventInput[] {
  return world.events
    .filter((e) => e.personId === personId && sites.includes(e.domain))
    .sort((a, b) => seconds(b.timestamp) - seconds(a.timestamp) || (a.eventId < b.eventId ? 1 : -1));
}

/** Events recorded on the sites strictly after `days` days before now. */
export function recentEventsIn(world: World, sites: readonly string[], days: number): number {
  const since = Math.floor(NOW / 1000) - days * 86_400;
  return world.events.filter((e) => sites.includes(e.domain) && seconds(e.timestamp) > since).length;
}

/**
 * People seen on both alpha.example and its subdomain shop.alpha.example (the shared world has
 * none), so that a scope over both has figures to sum: one seen last on each, one whose latest
 * visits tie (the shop, registered later, wins), one that ties per_010's lastSeen (the id breaks
 * it), and ones also seen on beta.example or the look-alike badalpha.example, which alpha's key
 * must leave out of their figures.
 */
export const ALPHA_FAMILY: PersonInput[] = [
  {
    id: 'per_900',
    email: 'both@mail.example',
    companyId: 'co_03',
    company: 'Company 3',
    isHotLead: true,
    visits: [
      { domain: 'alpha.example', visitCount: 3, firstSeen: iso(NOW - 30 * DAY), lastSeen: iso(NOW - 2.5 * HOUR) },
      { domain: 'shop.alpha.example', visitCount: 4, firstSeen: iso(NOW - 12 * DAY), lastSeen: iso(NOW - 5 * HOUR) },
    ],
  },
  {
    id: 'per_901',
    email: 'three@mail.example',
    companyId: 'co_03',
    company: 'Company 3',
    visits: [
      { domain: 'alpha.example', visitCount: 2, firstSeen: iso(NOW - 8 * DAY), lastSeen: iso(NOW - 50 * HOUR) },
      { domain: 'shop.alpha.example', visitCount: 5, firstSeen: iso(NOW - 20 * DAY), lastSeen: iso(NOW - 26 * HOUR) },
      { domain: 'beta.example', visitCount: 1, firstSeen: iso(NOW - 40 * DAY), lastSeen: iso(NOW - 1 * HOUR) },
    ],
  },
  {
    id: 'per_902',
    email: 'tie@mail.example',
    isHotLead: true,
    visits: [
      { domain: 'alpha.example', visitCount: 1, firstSeen: iso(NOW - 3 * DAY), lastSeen: iso(NOW - 10 * HOUR) },
      { domain: 'shop.alpha.example', visitCount: 1, firstSeen: iso(NOW - 4 * DAY), lastSeen: iso(NOW - 10 * HOUR) },
    ],
  },
  {
    id: 'per_903',
    email: 'lookalike@mail.example',
    companyId: 'co_05',
    company: 'Company 5',
    visits: [
      { domain: 'shop.alpha.example', visitCount: 2, firstSeen: iso(NOW - 9 * DAY), lastSeen: iso(NOW - 7 * HOUR) },
      { domain: 'badalpha.example', visitCount: 6, firstSeen: iso(NOW - 2 * DAY), lastSeen: iso(NOW - 1.5 * HOUR) },
    ],
  },
  {
    id: 'per_904',
    email: 'parent@mail.example',
    companyId: 'co_07',
    company: 'Company 7',
    visits: [
      { domain: 'alpha.example', visitCount: 1, firstSeen: iso(NOW - 15 * DAY), lastSeen: iso(NOW - 14 * DAY) },
      { domain: 'badalpha.example', visitCount: 3, firstSeen: iso(NOW - 6 * DAY), lastSeen: iso(NOW - 3 * HOUR) },
    ],
  },
];

/** per_900's journey on both alpha sites, with timestamps shared across them (the eventId breaks ties). */
export const ALPHA_FAMILY_EVENTS: EventInput[] = Array.from({ length: 16 }, (_, i) => {
  const domain = i % 2 === 0 ? 'alpha.example' : 'shop.alpha.example';
  return {
    eventId: `evt_f${String(i).padStart(2, '0')}`,
    personId: 'per_900',
    sessionId: 'ses_f',
    eventType: i % 3 === 0 ? 'click' : 'page_view',
    timestamp: iso(NOW - 2 * DAY + Math.floor(i / 4) * 60_000),
    url: `https://${domain}/f/${i}`,
    domain,
  };
});

/** Loads the alpha family into account A and into the world's record of it. */
export async function addAlphaFamily(world: World): Promise<void> {
  await world.api.admin.loadPeople('acc_a', ALPHA_FAMILY);
  await world.api.admin.loadEvents('acc_a', ALPHA_FAMILY_EVENTS);
  world.people.push(...ALPHA_FAMILY);
  world.events.push(...ALPHA_FAMILY_EVENTS);
}
