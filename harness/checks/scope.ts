import type { CheckContext, Walk } from '../context.ts';
import type { Check } from '../types.ts';
import { accountPeople, assertPage, domainsOf, domainWithin, eventsPath, show, withQuery } from './list-support.ts';

const SECTION = 'Authentication';

/** The first scoped key and the people it lists, walked with limit 100. */
async function scopedPeople(t: CheckContext): Promise<{ domain: string; key: string; walk: Walk }> {
  const { domain, key } = t.scoped();
  const walk = await t.discover.walk('/v1/people', key);
  walk.pages.forEach((r, i) => assertPage(t, r, `GET /v1/people with the ${domain} key, page ${i + 1}`, 100));
  return { domain, key, walk };
}

/** A tracked domain that neither is the scoped domain nor contains it or is contained by it, preferring one with people. */
async function otherDomain(t: CheckContext, scope: string): Promise<string> {
  return t.discover.once(`scope.other-domain ${scope}`, async () => {
    const all = await accountPeople(t);
    const unrelated = (d: string) => !domainWithin(d, scope) && !domainWithin(scope, d);
    const fromPeople = [...domainsOf(all).entries()].filter(([d]) => unrelated(d)).sort((a, b) => b[1] - a[1])[0]?.[0];
    const fromKeys = t.config.scopedKeys.map((s) => s.domain).find(unrelated);
    const other = fromPeople ?? fromKeys;
    if (!other) t.notApplicable(`no tracked domain besides ${scope} and its relatives`);
    return other;
  });
}

export const scopeChecks: Check[] = [
  {
    id: 'scope.people-within-domain',
    section: SECTION,
    title: 'A domain-scoped key lists only people of its domain',
    flags: ['scoped'],
    async run(t: CheckContext) {
      const { domain, walk } = await scopedPeople(t);
      if (walk.rows.length === 0) t.notApplicable(`the ${domain} key lists no one, so there is nothing to check`);
      walk.rows.forEach((p, i) => t.assert(domainWithin(p?.domain, domain), `GET /v1/people with the ${domain} key: row ${i} (${p?.id}) has domain ${show(p?.domain)}`));
      const all = await accountPeople(t);
      if (all.complete) t.assert(walk.rows.length < all.rows.length || all.rows.every((p) => domainWithin(p?.domain, domain)), `the ${domain} key lists all ${all.rows.length} people of the account, not only its own`);
    },
  },
  {
    id: 'scope.people-complete',
    section: SECTION,
    title: 'A domain-scoped key lists every person the account key lists with `domain` set to the key\'s domain (its subdomains included), and no one else',
    flags: ['scoped'],
    async run(t: CheckContext) {
      const { domain, key, walk } = await scopedPeople(t);
      // The spec states the scope in the terms of the domain filter: the domain and its subdomains.
      const path = withQuery('/v1/people', { domain });
      const family = await t.discover.walk(path, t.accountKey);
      family.pages.forEach((r, i) => assertPage(t, r, `GET ${path}, page ${i + 1}`, 100));
      if (family.rows.length === 0) t.notApplicable(`the account key lists no one under domain=${domain}, so there is no one the ${domain} key must list`);
      const mine = new Set(walk.rows.map((p) => p?.id));
      const theirs = new Set(family.rows.map((p) => p?.id));
      // Each side is known in full only when its walk ended within the profile's page limit.
      if (family.complete) {
        const extra = walk.rows.filter((p) => !theirs.has(p?.id));
        t.assert(extra.length === 0, `the ${domain} key lists ${extra.length} people the account key does not list under domain=${domain}, e.g. ${show(extra.slice(0, 3).map((p) => ({ id: p?.id, domain: p?.domain })), 200)}`);
      }
      if (walk.complete) {
        const missing = family.rows.filter((p) => !mine.has(p?.id));
        t.assert(missing.length === 0, `the ${domain} key leaves out ${missing.length} of the ${family.rows.length} people the account key lists under domain=${domain}, e.g. ${show(missing.slice(0, 3).map((p) => ({ id: p?.id, domain: p?.domain })), 200)}`);
      }
      // Bounded walks leave the rest to reading people one at a time: the account's people on the
      // domain's subdomains first (where a key read as its exact site would fail), then any.
      const sample = [...family.rows.filter((p) => domainWithin(p?.domain, domain) && String(p.domain).toLowerCase() !== domain), ...family.rows]
        .filter((p) => !mine.has(p?.id))
        .slice(0, 5);
      for (const person of walk.complete ? [] : sample) {
        const one = `/v1/people/${encodeURIComponent(person.id)}`;
        t.status(await t.get(one, { key }), 200, `GET ${one} (listed by the account key under domain=${domain}, domain ${show(person.domain)}) with the ${domain} key`);
      }
    },
  },
  {
    id: 'scope.subdomain-narrows',
    section: SECTION,
    title: 'A domain-scoped key passing `domain` for one of its subdomains reads only that subdomain',
    flags: ['scoped'],
    async run(t: CheckContext) {
      const { domain, key, walk } = await scopedPeople(t);
      const sub = [...domainsOf(walk).keys()].find((d) => d !== domain && domainWithin(d, domain));
      if (!sub) t.notApplicable(`the ${domain} key lists no one attributed to a subdomain of ${domain}`);
      const path = withQuery('/v1/people', { domain: sub, limit: 100 });
      const reply = await t.get(path, { key });
      assertPage(t, reply, `GET ${path} with the ${domain} key`, 100);
      const rows: any[] = reply.body.data;
      t.assert(rows.length > 0, `GET ${path} with the ${domain} key lists no one, though the key lists people attributed to ${sub}`);
      const outside = rows.filter((p) => !domainWithin(p?.domain, sub));
      t.assert(outside.length === 0, `GET ${path} with the ${domain} key lists ${outside.length} people of other domains, e.g. ${show(outside.slice(0, 3).map((p) => ({ id: p?.id, domain: p?.domain })), 200)}`);
      const mine = new Set(walk.rows.map((p) => p?.id));
      if (walk.complete) {
        const unknown = rows.filter((p) => !mine.has(p?.id));
        t.assert(unknown.length === 0, `GET ${path} with the ${domain} key lists ${unknown.length} people the key does not list without the filter, e.g. ${show(unknown.slice(0, 3).map((p) => p?.id))}`);
      }
    },
  },
  {
    id: 'scope.outside-person-404',
    section: SECTION,
    title: 'A person outside a scoped key\'s domain answers 404 not_found, for the person and for their events',
    flags: ['scoped'],
    async run(t: CheckContext) {
      const { domain, key, walk } = await scopedPeople(t);
      if (!walk.complete) t.notApplicable(`the ${domain} key's people could not be walked to the end, so no one is known to be outside`);
      const all = await accountPeople(t);
      const inside = new Set(walk.rows.map((p) => p.id));
      const outsider = all.rows.find((p) => !inside.has(p.id) && !domainWithin(p.domain, domain)) ?? all.rows.find((p) => !inside.has(p.id));
      if (!outsider) t.notApplicable(`every person the account key lists is also listed by the ${domain} key`);
      // Control: the key does read people in its scope.
      const insider = walk.rows[0];
      if (insider) {
        const ok = await t.get(`/v1/people/${encodeURIComponent(insider.id)}`, { key });
        t.status(ok, 200, `GET /v1/people/${insider.id} (in scope) with the ${domain} key`);
        t.assert(ok.body?.data?.id === insider.id, `GET /v1/people/${insider.id} with the ${domain} key returned ${show(ok.body?.data?.id)}`);
      }
      const path = `/v1/people/${encodeURIComponent(outsider.id)}`;
      t.status(await t.get(path), 200, `GET ${path} with the account key`);
      t.error(await t.get(path, { key }), 404, 'not_found', `GET ${path} (domain ${outsider.domain}) with the ${domain} key`);
      t.error(await t.get(eventsPath(outsider.id), { key }), 404, 'not_found', `GET ${eventsPath(outsider.id)} (domain ${outsider.domain}) with the ${domain} key`);
    },
  },
  {
    id: 'scope.domain-filter-ceiling',
    section: SECTION,
    title: 'Passing `domain` for another client\'s domain with a scoped key returns nothing',
    flags: ['scoped'],
    async run(t: CheckContext) {
      const { domain, key, walk } = await scopedPeople(t);
      const other = await otherDomain(t, domain);
      const path = withQuery('/v1/people', { domain: other, limit: 100 });
      const reply = await t.get(path, { key });
      assertPage(t, reply, `GET ${path} with the ${domain} key`, 100);
      t.assert(reply.body.data.length === 0, `GET ${path} with the ${domain} key returns ${reply.body.data.length} people, e.g. ${show(reply.body.data[0]?.domain)}`);
      t.assert(!('nextCursor' in reply.body.pagination), `GET ${path} with the ${domain} key: an empty result carries a nextCursor`);
      // The same ceiling holds on a journey the key can read.
      const insider = walk.rows[0];
      if (insider) {
        const events = withQuery(eventsPath(insider.id), { domain: other, limit: 100 });
        const r = await t.get(events, { key });
        assertPage(t, r, `GET ${events} with the ${domain} key`, 100);
        t.assert(r.body.data.length === 0, `GET ${events} with the ${domain} key returns ${r.body.data.length} events of ${show(r.body.data[0]?.domain)}`);
      }
    },
  },
  {
    id: 'scope.client-ref-ceiling',
    section: SECTION,
    title: 'Passing another client\'s `client_ref` with a scoped key shows none of that client\'s people or events: an empty page or a refusal',
    flags: ['scoped'],
    async run(t: CheckContext) {
      const { domain, key, walk } = await scopedPeople(t);
      const all = await accountPeople(t);
      const related = (d: unknown) => typeof d === 'string' && (domainWithin(d, domain) || domainWithin(domain, d));
      // The key's own client: whatever clientRef its rows, or the account's rows of its domain, carry.
      const own = new Set([...walk.rows, ...all.rows.filter((p) => related(p?.domain))].map((p) => p?.clientRef).filter((r) => typeof r === 'string'));
      const foreign = (r: any) => typeof r?.clientRef === 'string' && r.clientRef !== '' && !own.has(r.clientRef) && !related(r.domain);
      // Prefer an in-scope person whose journey, as the account sees it, holds another client's
      // events: only there can an events leak show. The most active people are tried first.
      let insider: any;
      let ref: string | undefined;
      for (const person of [...walk.rows].sort((a, b) => (Number(b.visitCount) || 0) - (Number(a.visitCount) || 0)).slice(0, 20)) {
        const page = await t.discover.firstPage(eventsPath(person.id), t.accountKey).catch(() => undefined);
        const event = page?.body.data.find(foreign);
        if (event) {
          [insider, ref] = [person, event.clientRef as string];
          break;
        }
      }
      ref ??= all.rows.find(foreign)?.clientRef;
      if (!ref) t.notApplicable(`no person or event of a client other than the ${domain} key's own carries a clientRef`);
      const paths = [withQuery('/v1/people', { client_ref: ref, limit: 100 })];
      const person = insider ?? walk.rows[0];
      if (person) paths.push(withQuery(eventsPath(person.id), { client_ref: ref, limit: 100 }));
      for (const path of paths) {
        const what = `GET ${path} with the ${domain} key`;
        const reply = await t.get(path, { key });
        if (reply.status !== 200) {
          // The spec does not say how the ceiling meets client_ref; refusing the filter also keeps it.
          t.assert(reply.status >= 400 && reply.status < 500 && reply.status !== 401 && reply.status !== 429, `${what}: expected an empty page or a 4xx refusal, got ${reply.status} ${reply.text.slice(0, 200)}`);
          t.envelope(reply, what);
          continue;
        }
        assertPage(t, reply, what, 100);
        const leaked = reply.body.data.filter((r: any) => !domainWithin(r?.domain, domain) || r?.clientRef === ref);
        t.assert(leaked.length === 0, `${what}: returns ${leaked.length} rows of another client, e.g. ${show(leaked.slice(0, 3).map((r: any) => ({ domain: r?.domain, clientRef: r?.clientRef })), 200)}`);
        t.assert(reply.body.data.length === 0, `${what}: returns ${reply.body.data.length} rows of its own domain, which client ${ref} does not cover (the filter was dropped, not applied within the scope)`);
      }
      if (!insider) t.notApplicable(`none of the ${domain} key's 20 most active people has events of another client, so an events leak could not show; the people list held`);
    },
  },
  {
    id: 'scope.events-within-domain',
    section: 'GET /v1/people/{id}/events',
    title: 'With a domain-scoped key a journey holds only events from that key\'s domain',
    flags: ['scoped'],
    async run(t: CheckContext) {
      const { domain, key, walk } = await scopedPeople(t);
      if (walk.rows.length === 0) t.notApplicable(`the ${domain} key lists no one`);
      // Look for an in-scope person whose journey, as the account sees it, crosses into other
      // domains: only there can a leak show. The most active people are tried first.
      const candidates = [...walk.rows].sort((a, b) => (Number(b.visitCount) || 0) - (Number(a.visitCount) || 0)).slice(0, 20);
      let crossing: any;
      for (const person of candidates) {
        // The account's first page of the journey, shared with the other checks that read it.
        const reply = await t.discover.firstPage(eventsPath(person.id), t.accountKey).catch(() => undefined);
        if (reply?.body.data.some((e: any) => !domainWithin(e?.domain, domain))) {
          crossing = person;
          break;
        }
      }
      let seen = 0;
      for (const person of crossing ? [crossing] : candidates.slice(0, 2)) {
        const path = withQuery(eventsPath(person.id), { limit: 100 });
        const reply = await t.get(path, { key });
        assertPage(t, reply, `GET ${path} with the ${domain} key`, 100);
        reply.body.data.forEach((e: any, i: number) =>
          t.assert(domainWithin(e?.domain, domain), `GET ${path} with the ${domain} key: event ${i} (${e?.eventId}) has domain ${show(e?.domain)}`),
        );
        seen += reply.body.data.length;
      }
      if (seen === 0) t.notApplicable(`the ${domain} key's most active people show no events`);
      if (!crossing) t.notApplicable(`none of the ${domain} key's 20 most active people has events on other domains, so a leak could not show`);
    },
  },
  {
    id: 'scope.cursor-bound-to-key',
    section: 'Pagination and ordering',
    title: 'A scoped key\'s cursor is rejected with the account key, and the account key\'s with the scoped key (400 invalid_cursor)',
    flags: ['scoped'],
    async run(t: CheckContext) {
      const { domain, key } = t.scoped();
      const scopedPage = await t.get('/v1/people?limit=1', { key });
      assertPage(t, scopedPage, `GET /v1/people?limit=1 with the ${domain} key`, 1);
      const scopedCursor = t.nextCursor(scopedPage, `the ${domain} key's people`);
      const accountPage = await t.get('/v1/people?limit=1');
      assertPage(t, accountPage, 'GET /v1/people?limit=1', 1);
      const accountCursor = t.nextCursor(accountPage, "the account's people");
      t.error(await t.get(withQuery('/v1/people', { limit: 1, cursor: scopedCursor })), 400, 'invalid_cursor', `GET /v1/people with the account key and a cursor of the ${domain} key`);
      t.error(await t.get(withQuery('/v1/people', { limit: 1, cursor: accountCursor }), { key }), 400, 'invalid_cursor', `GET /v1/people with the ${domain} key and a cursor of the account key`);
    },
  },
  {
    id: 'scope.exports-403',
    section: SECTION,
    title: 'A domain-scoped key cannot start an export: 403 scope_not_supported',
    flags: ['scoped'],
    async run(t: CheckContext) {
      const { domain, key } = t.scoped();
      t.error(await t.startExport(undefined, { key }), 403, 'scope_not_supported', `POST /v1/exports with the ${domain} key`);
      t.error(await t.startExport({ domains: [domain] }, { key }), 403, 'scope_not_supported', `POST /v1/exports {domains:[${domain}]} with the ${domain} key`);
    },
  },
  {
    id: 'scope.stats-within-scope',
    section: SECTION,
    title: 'Statistics read with a scoped key count only its people',
    flags: ['scoped'],
    async run(t: CheckContext) {
      const { domain, key, walk } = await scopedPeople(t);
      const mine = await t.get('/v1/stats', { key });
      t.status(mine, 200, `GET /v1/stats with the ${domain} key`);
      const account = await t.get('/v1/stats');
      t.status(account, 200, 'GET /v1/stats');
      const scopedTotal = mine.body?.data?.totalPeople;
      const accountTotal = account.body?.data?.totalPeople;
      t.assert(Number.isInteger(scopedTotal) && Number.isInteger(accountTotal), `totalPeople is ${show(scopedTotal)} (scoped) and ${show(accountTotal)} (account), not integers`);
      t.assert(scopedTotal <= accountTotal, `the ${domain} key counts ${scopedTotal} people, more than the account's ${accountTotal}`);
      if (walk.complete) t.assert(scopedTotal === walk.rows.length, `the ${domain} key's stats count ${scopedTotal} people but it lists ${walk.rows.length}`);
      const all = await accountPeople(t);
      if (all.complete && walk.complete && walk.rows.length < all.rows.length) t.assert(scopedTotal < accountTotal, `the ${domain} key's stats count the whole account (${scopedTotal})`);
    },
  },
];
