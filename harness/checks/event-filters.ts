/** The client filters (`domain`, `client_ref`) on a person's events, read with the account key. */
import type { CheckContext, Walk } from '../context.ts';
import type { Check } from '../types.ts';
import { filtered } from './filters.ts';
import { accountPeople, domainWithin, eventsPath, show, withQuery } from './list-support.ts';

const EVENTS = 'GET /v1/people/{id}/events';
/** How many of the most active people's journeys may be sampled to find one that crosses sites. */
const SAMPLE = 25;

/** A filter value for a journey and the events it must keep. */
interface Choice {
  value: string;
  keep: (event: any) => boolean;
  /** What a kept event looks like, for messages. */
  describe: (event: any) => string;
}

/** A choice only counts when it keeps some events of the journey and drops others: only then can an ignored filter show. */
const splits = (events: any[], keep: (e: any) => boolean) => {
  const kept = events.filter(keep).length;
  return kept > 0 && kept < events.length;
};

/**
 * A `domain` value splitting the journey, preferring one that also keeps events of a subdomain
 * (a parent of an event's domain counts as a candidate, so `shop.x.com` events test `domain=x.com`).
 */
function chooseDomain(events: any[]): Choice | undefined {
  const domains = new Set(events.map((e) => e?.domain).filter((d): d is string => typeof d === 'string' && d !== '').map((d) => d.toLowerCase()));
  const candidates = new Set<string>();
  for (const d of domains) {
    candidates.add(d);
    const parent = d.slice(d.indexOf('.') + 1);
    if (d.includes('.') && parent.includes('.')) candidates.add(parent);
  }
  let best: { value: string; sub: boolean } | undefined;
  for (const value of candidates) {
    if (!splits(events, (e) => domainWithin(e?.domain, value))) continue;
    const sub = events.some((e) => domainWithin(e?.domain, value) && String(e.domain).toLowerCase() !== value);
    if (!best || (sub && !best.sub)) best = { value, sub };
  }
  if (!best) return undefined;
  const value = best.value;
  return { value, keep: (e) => domainWithin(e?.domain, value), describe: (e) => `domain ${show(e?.domain)}` };
}

/** A `client_ref` value splitting the journey, preferring one whose events span several domains. */
function chooseClientRef(events: any[]): Choice | undefined {
  const refs = new Map<string, Set<string>>();
  for (const e of events) {
    if (typeof e?.clientRef !== 'string' || e.clientRef === '') continue;
    if (!refs.has(e.clientRef)) refs.set(e.clientRef, new Set());
    refs.get(e.clientRef)!.add(String(e.domain).toLowerCase());
  }
  const usable = [...refs.entries()].filter(([ref]) => splits(events, (e) => e?.clientRef === ref)).sort((a, b) => b[1].size - a[1].size);
  const value = usable[0]?.[0];
  if (value === undefined) return undefined;
  return { value, keep: (e) => e?.clientRef === value, describe: (e) => `clientRef ${show(e?.clientRef)} (domain ${show(e?.domain)})` };
}

/**
 * The first of the most active people whose journey a filter value can split (judged on its
 * first page, then on the journey walked whole), with that journey; a skip when none can be.
 */
async function splitJourney(t: CheckContext, choose: (events: any[]) => Choice | undefined, what: string): Promise<{ person: any; journey: Walk; choice: Choice }> {
  const people = await accountPeople(t);
  const candidates = people.rows
    .filter((p) => typeof p?.id === 'string')
    .sort((a, b) => (Number(b.visitCount) || 0) - (Number(a.visitCount) || 0))
    .slice(0, SAMPLE);
  for (const person of candidates) {
    const first = await t.discover.firstPage(eventsPath(person.id), t.accountKey);
    if (!choose(first.body.data)) continue;
    const journey = await t.discover.walk(eventsPath(person.id), t.accountKey);
    const choice = choose(journey.rows);
    if (choice) return { person, journey, choice };
  }
  t.notApplicable(`none of the ${candidates.length} most active people has a journey holding events ${what}`);
}

/** Walks the journey with the filter and compares it with the unfiltered journey. */
async function assertNarrowed(t: CheckContext, param: 'domain' | 'client_ref', person: any, journey: Walk, choice: Choice): Promise<void> {
  const path = withQuery(eventsPath(person.id), { [param]: choice.value });
  const walk = await filtered(t, path);
  t.assert(walk.rows.length > 0, `GET ${path}: no events, though the unfiltered journey holds ${journey.rows.filter(choice.keep).length} that match`);
  walk.rows.forEach((e, i) => t.assert(choice.keep(e), `GET ${path}: event ${i} (${show(e?.eventId)}) has ${choice.describe(e)}, outside ${param}=${choice.value}`));
  if (!journey.complete || !walk.complete) return;
  const got = new Set(walk.rows.map((e) => e?.eventId));
  const want = journey.rows.filter(choice.keep);
  const missing = want.filter((e) => !got.has(e.eventId));
  t.assert(missing.length === 0, `GET ${path}: misses ${missing.length} of the journey's ${want.length} matching events, e.g. ${show(missing.slice(0, 3).map((e) => ({ eventId: e.eventId, domain: e.domain, clientRef: e.clientRef })), 300)}`);
  t.assert(walk.rows.length === want.length, `GET ${path}: returns ${walk.rows.length} events, the journey holds ${want.length} that match`);
}

export const eventFilterChecks: Check[] = [
  {
    id: 'filters.events-domain',
    section: EVENTS,
    title: 'With the account key, `domain` narrows a journey to the events of that domain and its subdomains',
    async run(t: CheckContext) {
      const { person, journey, choice } = await splitJourney(t, chooseDomain, 'on more than one domain');
      await assertNarrowed(t, 'domain', person, journey, choice);
    },
  },
  {
    id: 'filters.events-client-ref',
    section: EVENTS,
    title: 'With the account key, `client_ref` narrows a journey to the events of that client\'s domains',
    async run(t: CheckContext) {
      const { person, journey, choice } = await splitJourney(t, chooseClientRef, 'of more than one client');
      await assertNarrowed(t, 'client_ref', person, journey, choice);
    },
  },
];
