import type { CheckContext, Walk } from '../context.ts';
import { cutOf, hotLeads, lastSeenAfter, origin } from '../choices.ts';
import type { Check } from '../types.ts';
import { accountCompanies, accountPeople, assertPage, domainsOf, domainWithin, eventsPath, instant, longestJourney, show, withQuery } from './list-support.ts';

const PEOPLE = 'GET /v1/people';
const EVENTS = 'GET /v1/people/{id}/events';
const COMPANIES = 'GET /v1/companies';

/** Walks a filtered list with limit 100 (remembered), checking each page's shape. */
export async function filtered(t: CheckContext, path: string, key: string = t.accountKey): Promise<Walk> {
  const walk = await t.discover.walk(path, key);
  walk.pages.forEach((r, i) => assertPage(t, r, `GET ${path} page ${i + 1}`, 100));
  return walk;
}

/** Fails unless every expected id is among the filtered rows (only when the filtered walk is complete). */
export function assertIncludes(t: CheckContext, walk: Walk, expected: any[], what: string, why: string): void {
  if (!walk.complete) return;
  const got = new Set(walk.rows.map((r) => r?.id));
  const missing = expected.filter((p) => !got.has(p.id));
  t.assert(missing.length === 0, `${what}: misses ${missing.length} of ${expected.length} rows ${why}, e.g. ${show(missing.slice(0, 3).map((p) => ({ id: p.id, domain: p.domain, clientRef: p.clientRef, lastSeen: p.lastSeen })), 300)}`);
}

/** Fails unless every filtered row is also one of the account's (when the account walk is complete). */
function assertSubset(t: CheckContext, walk: Walk, all: Walk, what: string): void {
  if (!all.complete) return;
  const ids = new Set(all.rows.map((r) => r?.id));
  const extra = walk.rows.filter((r) => !ids.has(r?.id));
  t.assert(extra.length === 0, `${what}: returns ${extra.length} rows the unfiltered list does not hold, e.g. ${show(extra[0]?.id)}`);
}

/** A hostname that is not one of the known domains nor a parent of one. */
function unknownDomain(candidate: string, known: Iterable<string>): boolean {
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/.test(candidate)) return false;
  for (const d of known) if (domainWithin(d, candidate)) return false;
  return true;
}

export const filtersChecks: Check[] = [
  {
    id: 'filters.domain-includes-subdomains',
    section: PEOPLE,
    title: '`domain` returns the people of that domain and of its subdomains, and no one else',
    async run(t: CheckContext) {
      const all = await accountPeople(t);
      const domains = domainsOf(all);
      let parent: string | undefined;
      let best = 0;
      for (const d of domains.keys()) {
        const subs = [...domains.keys()].filter((e) => e.endsWith(`.${d}`)).length;
        if (subs > best) [parent, best] = [d, subs];
      }
      if (!parent) t.notApplicable(`no domain among the people (${[...domains.keys()].join(', ')}) has a subdomain that is also tracked`);
      const path = withQuery('/v1/people', { domain: parent });
      const walk = await filtered(t, path);
      walk.rows.forEach((p, i) => t.assert(domainWithin(p?.domain, parent), `GET ${path}: row ${i} (${p?.id}) has domain ${show(p?.domain)}, neither ${parent} nor a subdomain of it`));
      const expected = all.rows.filter((p) => domainWithin(p?.domain, parent));
      const subPeople = expected.filter((p) => p.domain.toLowerCase() !== parent);
      t.assert(subPeople.length > 0, `no person on a subdomain of ${parent}`);
      assertIncludes(t, walk, subPeople, `GET ${path}`, `seen on a subdomain of ${parent}`);
      assertIncludes(t, walk, expected, `GET ${path}`, `seen on ${parent}`);
      assertSubset(t, walk, all, `GET ${path}`);
      if (!walk.complete) t.assert(walk.rows.length > 0, `GET ${path}: no rows though ${expected.length} people carry that domain or a subdomain`);
    },
  },
  {
    id: 'filters.domain-excludes-lookalikes',
    section: PEOPLE,
    title: '`domain` never matches a look-alike domain that merely ends with the same characters',
    async run(t: CheckContext) {
      const all = await accountPeople(t);
      const domains = domainsOf(all);
      if (domains.size === 0) t.notApplicable('no person carries a domain');
      const known = [...domains.keys()];
      // Prefer a domain with a real look-alike (badexample.com beside example.com); else the most common one.
      const withLookalike = known.find((d) => known.some((e) => e !== d && e.endsWith(d) && !e.endsWith(`.${d}`)));
      const target = withLookalike ?? [...domains.entries()].sort((a, b) => b[1] - a[1])[0]![0];
      const path = withQuery('/v1/people', { domain: target });
      const walk = await filtered(t, path);
      t.assert(walk.rows.length > 0, `GET ${path}: no rows though ${domains.get(target)} people carry that domain`);
      walk.rows.forEach((p, i) => t.assert(domainWithin(p?.domain, target), `GET ${path}: row ${i} (${p?.id}) has domain ${show(p?.domain)}, a look-alike or another domain, not ${target} or a subdomain`));
      // Synthetic look-alikes that no site carries: a prefix added (catches a swapped suffix test) and a character
      // dropped (catches a suffix test without the dot). Each must return only rows of exactly that domain: none.
      const probes = [`x${target}`, target.slice(1)].filter((s) => unknownDomain(s, known));
      for (const probe of probes) {
        const reply = await t.get(withQuery('/v1/people', { domain: probe, limit: 100 }));
        assertPage(t, reply, `GET /v1/people?domain=${probe}`, 100);
        const wrong = reply.body.data.filter((p: any) => !domainWithin(p?.domain, probe));
        t.assert(wrong.length === 0, `GET /v1/people?domain=${probe} returns ${wrong.length} people of other domains, e.g. ${show(wrong.slice(0, 3).map((p: any) => p?.domain))}`);
      }
      if (!withLookalike && probes.length === 0) t.notApplicable('no real or synthetic look-alike domain could be formed');
    },
  },
  {
    id: 'filters.client-ref',
    section: PEOPLE,
    title: '`client_ref` returns only that client\'s people, covering every domain registered under it, for each client seen on several domains',
    async run(t: CheckContext) {
      const all = await accountPeople(t);
      const refs = new Map<string, Set<string>>();
      for (const p of all.rows) {
        if (typeof p?.clientRef !== 'string' || p.clientRef.length === 0) continue;
        if (!refs.has(p.clientRef)) refs.set(p.clientRef, new Set());
        if (typeof p.domain === 'string') refs.get(p.clientRef)!.add(p.domain);
      }
      if (refs.size === 0) t.notApplicable('no person carries a clientRef');
      // Every reference spread over several domains shows whether the filter covers all of them for
      // that client (a server may get one client right and another wrong); else the most common one.
      const spread = [...refs.entries()].filter(([, domains]) => domains.size > 1);
      const checked = spread.length > 0 ? spread : [[...refs.entries()].sort((a, b) => b[1].size - a[1].size)[0]!];
      for (const [ref, refDomains] of checked) {
        const path = withQuery('/v1/people', { client_ref: ref });
        const walk = await filtered(t, path);
        walk.rows.forEach((p, i) => t.assert(p?.clientRef === ref, `GET ${path}: row ${i} (${p?.id}) has clientRef ${show(p?.clientRef)}`));
        for (const domain of refDomains) {
          const expected = all.rows.filter((p) => p?.clientRef === ref && p.domain === domain);
          assertIncludes(t, walk, expected, `GET ${path}`, `seen on ${domain}, which carries clientRef ${ref}`);
        }
        assertSubset(t, walk, all, `GET ${path}`);
        t.assert(walk.rows.length > 0, `GET ${path}: no rows`);
      }
      const ref = checked[0]![0];
      const unknown = withQuery('/v1/people', { client_ref: `${ref}-harness-unknown`, limit: 100 });
      const none = await t.get(unknown);
      assertPage(t, none, `GET ${unknown}`, 100);
      t.assert(none.body.data.length === 0, `GET ${unknown} returns ${none.body.data.length} people for a client reference no site carries`);
    },
  },
  {
    id: 'filters.event-type-narrows',
    section: EVENTS,
    title: '`event_type` narrows a journey to that kind of event only',
    async run(t: CheckContext) {
      const { person, walk: journey } = await longestJourney(t);
      const counts = new Map<string, number>();
      for (const e of journey.rows) if (typeof e?.eventType === 'string') counts.set(e.eventType, (counts.get(e.eventType) ?? 0) + 1);
      if (counts.size < 2) t.notApplicable(`the longest journey found holds ${counts.size} kind(s) of event; narrowing needs two`);
      // The most frequent type short of the whole journey: the narrowed list is a strict subset, and
      // with several events to return, one that returns only some of them shows.
      const type = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0];
      const path = withQuery(eventsPath(person.id), { event_type: type });
      const walk = await filtered(t, path);
      t.assert(walk.rows.length > 0, `GET ${path}: no events though the journey holds ${counts.get(type)}`);
      walk.rows.forEach((e, i) => t.assert(e?.eventType === type, `GET ${path}: event ${i} (${e?.eventId}) has eventType ${show(e?.eventType)}`));
      if (journey.complete && walk.complete) {
        const want = journey.rows.filter((e) => e.eventType === type).map((e) => e.eventId).sort();
        const got = walk.rows.map((e) => e.eventId).sort();
        t.assert(JSON.stringify(want) === JSON.stringify(got), `GET ${path}: returns ${got.length} events, the journey holds ${want.length} of that type`);
      }
    },
  },
  {
    id: 'filters.event-type-unknown-empty',
    section: EVENTS,
    title: 'An `event_type` no event carries gives an empty page, not an error',
    async run(t: CheckContext) {
      const { person } = await longestJourney(t);
      const path = withQuery(eventsPath(person.id), { event_type: 'harness_unknown_type', limit: 100 });
      const reply = await t.get(path);
      assertPage(t, reply, `GET ${path}`, 100);
      t.assert(reply.body.data.length === 0, `GET ${path}: returns ${reply.body.data.length} events`);
      t.assert(!('nextCursor' in reply.body.pagination), `GET ${path}: an empty result carries a nextCursor`);
    },
  },
  ...(['people', 'companies'] as const).map(
    (list): Check => ({
      id: `filters.${list}-last-seen-after`,
      section: list === 'people' ? PEOPLE : COMPANIES,
      title: `The lastSeen-after filter on ${list} returns exactly the rows whose lastSeen is strictly after the instant`,
      async run(t: CheckContext) {
        const all = list === 'people' ? await accountPeople(t) : await accountCompanies(t);
        // The instant needs rows on both sides, or the filter could not show: the median distinct value, never the newest.
        const cutAt = cutOf(all.rows);
        if (!cutAt) t.notApplicable(`the ${all.rows.length} ${list} show fewer than two distinct lastSeen values, so no instant has rows on both sides`);
        const name = await lastSeenAfter(t, list);
        const cut = instant(cutAt);
        const path = withQuery(`/v1/${list}`, { [name.param]: cutAt });
        const walk = await filtered(t, path);
        const expected = all.rows.filter((r) => instant(r?.lastSeen) > cut);
        if (all.complete && walk.complete && walk.rows.length === all.rows.length) {
          t.fail(`${name.param} (named by ${origin(name)}) is ignored: GET ${path} returns all ${all.rows.length} ${list}, though only ${expected.length} were seen after ${cutAt}`);
        }
        walk.rows.forEach((r, i) => t.assert(instant(r?.lastSeen) > cut, `GET ${path}: row ${i} (${r?.id}) has lastSeen ${show(r?.lastSeen)}, not after ${cutAt}`));
        // The walk is lastSeen-descending, so every row after the cut is within what was walked.
        assertIncludes(t, walk, expected, `GET ${path}`, `whose lastSeen is after ${cutAt}`);
        if (walk.complete) t.assert(walk.rows.length === expected.length, `GET ${path}: returns ${walk.rows.length} rows, ${expected.length} have lastSeen after ${cutAt}`);
      },
    }),
  ),
  {
    id: 'filters.hot-leads',
    section: PEOPLE,
    title: 'The hot-leads filter returns exactly the people whose isHotLead is true',
    async run(t: CheckContext) {
      const all = await accountPeople(t);
      const hot = all.rows.filter((p) => p?.isHotLead === true);
      if (hot.length === 0) t.notApplicable('no person is a hot lead, so the filter has nothing to keep');
      if (hot.length === all.rows.length) t.notApplicable('every person is a hot lead, so the filter cannot be told from none');
      const name = await hotLeads(t);
      const path = withQuery('/v1/people', { [name.param]: name.value });
      const walk = await filtered(t, path);
      if (all.complete && walk.complete && walk.rows.length === all.rows.length) {
        t.fail(`${name.param}=${name.value} (named by ${origin(name)}) is ignored: GET ${path} returns all ${all.rows.length} people, though ${hot.length} are hot leads`);
      }
      walk.rows.forEach((p, i) => t.assert(p?.isHotLead === true, `GET ${path}: row ${i} (${p?.id}) has isHotLead ${show(p?.isHotLead)}`));
      assertIncludes(t, walk, hot, `GET ${path}`, 'with isHotLead true');
      assertSubset(t, walk, all, `GET ${path}`);
    },
  },
  {
    id: 'filters.last-seen-after-malformed-400',
    section: PEOPLE,
    title: 'A lastSeen-after value that is not an ISO 8601 date answers 400 validation_error with the error envelope, on people and on companies',
    async run(t: CheckContext) {
      // Neither is a date in any reading: ignoring such a value would quietly return every row.
      for (const list of ['people', 'companies'] as const) {
        const name = await lastSeenAfter(t, list);
        for (const value of ['not-a-date', '2026-13-45']) {
          const path = withQuery(`/v1/${list}`, { [name.param]: value, limit: 1 });
          t.error(await t.get(path), 400, 'validation_error', `GET ${path} (${name.param} named by ${origin(name)})`);
        }
      }
    },
  },
  {
    id: 'filters.hot-leads-malformed-400',
    section: PEOPLE,
    title: 'A hot-leads value that is not a boolean answers 400 validation_error with the error envelope',
    async run(t: CheckContext) {
      const name = await hotLeads(t);
      // The spec shows neither the name nor the type; only a boolean flag has values that are clearly malformed.
      if (!/^(true|false|1|0|yes|no)$/i.test(name.value)) t.notApplicable(`the hot-leads value ${show(name.value)} is not a boolean, so which values are malformed is not known`, 'hotLeadsValue');
      for (const value of ['maybe', 'tru']) {
        const path = withQuery('/v1/people', { [name.param]: value, limit: 1 });
        t.error(await t.get(path), 400, 'validation_error', `GET ${path} (${name.param} named by ${origin(name)})`);
      }
    },
  },
];
