import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventInput, PersonInput } from '../../adapters/node/index.ts';
import { clientFor, errorCode } from '../support/client.ts';
import { TARGETS } from '../support/targets.ts';
import { createWorld, NOW, seconds, SITES, visitOn, type World } from '../support/world.ts';

/* ---------- expected answers, computed from what the fixture loaded ---------- */

const DOMAINS = SITES.map((s) => s.domain);
const DAY_S = 86_400;

const isoS = (s: number): string => new Date(s * 1000).toISOString().slice(0, 19) + 'Z';
const clientRefOf = (domain: string): string | null => SITES.find((s) => s.domain === domain)!.clientRef;

/** The people the fixture placed on a site, in list order: the site's lastSeen descending, then id descending. */
function peopleOn(world: World, domain: string): PersonInput[] {
  return world.people
    .filter((p) => visitOn(p, domain))
    .sort((a, b) => seconds(visitOn(b, domain)!.lastSeen) - seconds(visitOn(a, domain)!.lastSeen) || (a.id < b.id ? 1 : -1));
}

/** What a scoped key should show of a person: the one site's figures. */
function siteFigures(person: PersonInput, domain: string) {
  const v = visitOn(person, domain)!;
  return { visitCount: v.visitCount, firstSeen: isoS(seconds(v.firstSeen)), lastSeen: isoS(seconds(v.lastSeen)) };
}

/** What the account key shows of a person: every site's visits summed. */
function accountFigures(person: PersonInput) {
  return {
    visitCount: person.visits.reduce((n, v) => n + v.visitCount, 0),
    firstSeen: isoS(Math.min(...person.visits.map((v) => seconds(v.firstSeen)))),
    lastSeen: isoS(Math.max(...person.visits.map((v) => seconds(v.lastSeen)))),
  };
}

/** Companies with a person on the site, with that site's figures, in list order. */
function companiesOn(world: World, domain: string) {
  const byId = new Map<string, { id: string; visitCount: number; first: number; last: number }>();
  for (const p of peopleOn(world, domain)) {
    if (!p.companyId) continue;
    const v = visitOn(p, domain)!;
    const c = byId.get(p.companyId) ?? { id: p.companyId, visitCount: 0, first: Infinity, last: -Infinity };
    c.visitCount += v.visitCount;
    c.first = Math.min(c.first, seconds(v.firstSeen));
    c.last = Math.max(c.last, seconds(v.lastSeen));
    byId.set(p.companyId, c);
  }
  return [...byId.values()]
    .sort((a, b) => b.last - a.last || (a.id < b.id ? 1 : -1))
    .map((c) => ({ id: c.id, visitCount: c.visitCount, firstSeen: isoS(c.first), lastSeen: isoS(c.last) }));
}

/** A person's events on the given sites, in journey order: timestamp descending, then eventId descending. */
function journey(world: World, personId: string, domains: readonly string[]): EventInput[] {
  return world.events
    .filter((e) => e.personId === personId && domains.includes(e.domain))
    .sort((a, b) => seconds(b.timestamp) - seconds(a.timestamp) || (a.eventId < b.eventId ? 1 : -1));
}

/** Events recorded on the site strictly after `days` days before now. */
function recentEventsOn(world: World, domain: string, days: number): number {
  const since = Math.floor(NOW / 1000) - days * DAY_S;
  return world.events.filter((e) => e.domain === domain && seconds(e.timestamp) > since).length;
}

describe.each(TARGETS)('domain-scoped keys ($name)', (target) => {
  let world: World;
  let client: ReturnType<typeof clientFor>;
  let close: () => Promise<void>;
  const keyOf = (domain: string) => world.scopedKeys[domain]!;

  beforeAll(async () => {
    world = await createWorld();
    const started = await target.start(world.api);
    client = clientFor(started.call);
    close = started.close;
  });
  afterAll(() => close());

  /* ---------- people ---------- */

  it('lists through a scoped key exactly the people seen on its site, in lastSeen then id order, across pages', async () => {
    for (const domain of DOMAINS) {
      const expected = peopleOn(world, domain).map((p) => p.id);
      expect(expected.length, `fixture people on ${domain}`).toBeGreaterThan(0);
      const { rows, pages } = await client.walk('/v1/people', keyOf(domain), 7);
      expect(rows.map((p) => p.id), domain).toEqual(expected);
      expect(pages).toBe(Math.ceil(expected.length / 7));
    }
  });

  it('labels every person a scoped key reads with its own site and that site’s visitCount, firstSeen and lastSeen', async () => {
    for (const domain of DOMAINS) {
      const { rows } = await client.walk('/v1/people', keyOf(domain), 100);
      for (const row of rows) {
        const person = world.people.find((p) => p.id === row.id)!;
        expect({ id: row.id, domain: row.domain, clientRef: row.clientRef, visitCount: row.visitCount, firstSeen: row.firstSeen, lastSeen: row.lastSeen }).toEqual({
          id: person.id,
          domain,
          clientRef: clientRefOf(domain),
          ...siteFigures(person, domain),
        });
        // The single-person endpoint tells the same story as the list.
        const one = await client.get(`/v1/people/${row.id}`, keyOf(domain));
        expect(one.status).toBe(200);
        expect(one.body.data).toEqual(row);
      }
    }
  });

  it('shows a person seen on several sites with per-site figures that differ from the account key’s', async () => {
    const multi = world.people.filter((p) => p.visits.length > 1);
    expect(multi.length).toBeGreaterThan(5);
    for (const person of multi) {
      const account = await client.get(`/v1/people/${person.id}`, world.accountKey);
      expect(account.status).toBe(200);
      expect(account.body.data).toMatchObject(accountFigures(person));
      for (const visit of person.visits) {
        const scoped = await client.get(`/v1/people/${person.id}`, keyOf(visit.domain));
        expect(scoped.status, `${person.id} via ${visit.domain}`).toBe(200);
        expect(scoped.body.data).toMatchObject({ domain: visit.domain, ...siteFigures(person, visit.domain) });
        // Each site sees fewer visits than the account as a whole, and at least one date of its own.
        expect(scoped.body.data.visitCount).toBeLessThan(account.body.data.visitCount);
        const sameDates = scoped.body.data.firstSeen === account.body.data.firstSeen && scoped.body.data.lastSeen === account.body.data.lastSeen;
        expect(sameDates, `${person.id} via ${visit.domain} shows the account-wide dates`).toBe(false);
        // Everything that is not activity or attribution reads the same.
        const strip = ({ visitCount, firstSeen, lastSeen, domain, clientRef, ...rest }: any) => rest;
        expect(strip(scoped.body.data)).toEqual(strip(account.body.data));
      }
    }
  });

  it('answers 404 not_found for a person of another client, on the person and on their events', async () => {
    for (const domain of DOMAINS) {
      const outsiders = world.people.filter((p) => !visitOn(p, domain));
      expect(outsiders.length).toBeGreaterThan(0);
      for (const person of outsiders.slice(0, 6)) {
        for (const path of [`/v1/people/${person.id}`, `/v1/people/${person.id}/events`]) {
          const reply = await client.get(path, keyOf(domain));
          expect(reply.status, `${path} via ${domain}`).toBe(404);
          expect(errorCode(reply)).toBe('not_found');
        }
      }
    }
    // The look-alike's visitor is not alpha's, and alpha's visitor is not the look-alike's.
    expect((await client.get('/v1/people/per_002', keyOf('alpha.example'))).status).toBe(404);
    expect((await client.get('/v1/people/per_000', keyOf('badalpha.example'))).status).toBe(404);
  });

  it('gives the same 404 body for another client’s person as for an id that does not exist, so existence is not revealed', async () => {
    const key = keyOf('alpha.example');
    const other = world.people.find((p) => !visitOn(p, 'alpha.example'))!.id; // exists, on another site
    const missing = 'per_999';
    expect(world.people.some((p) => p.id === missing)).toBe(false);
    for (const path of ['/v1/people/{id}', '/v1/people/{id}/events', '/v1/people/{id}/events?limit=5&event_type=click']) {
      const a = await client.get(path.replace('{id}', other), key);
      const b = await client.get(path.replace('{id}', missing), key);
      expect([a.status, b.status]).toEqual([404, 404]);
      expect(JSON.stringify(a.body).replaceAll(other, '<id>')).toBe(JSON.stringify(b.body).replaceAll(missing, '<id>'));
      expect(a.headers.get('content-type')).toBe(b.headers.get('content-type'));
    }
  });

  it('returns an empty last page when a scoped key filters by another client’s domain', async () => {
    const key = keyOf('alpha.example');
    for (const other of ['beta.example', 'badalpha.example', 'gamma.example', 'shop.alpha.example']) {
      for (const path of [`/v1/people?domain=${other}`, `/v1/companies?domain=${other}`, `/v1/people/per_000/events?domain=${other}`]) {
        const reply = await client.get(path, key);
        expect(reply.status, path).toBe(200);
        expect(reply.body.data, path).toEqual([]);
        expect(reply.body.pagination, path).toEqual({ limit: 50, count: 0 });
      }
      const stats = await client.get(`/v1/stats?domain=${other}`, key);
      expect(stats.body.data).toMatchObject({ totalPeople: 0, totalCompanies: 0, recentEvents: 0 });
    }
  });

  it('returns an empty last page when a scoped key filters by another client’s client_ref', async () => {
    const cases: [string, string][] = [
      ['alpha.example', 'beta'],
      ['alpha.example', 'bad'],
      ['beta.example', 'alpha'],
      ['gamma.example', 'alpha'],
      ['badalpha.example', 'alpha'],
    ];
    for (const [domain, ref] of cases) {
      for (const path of [`/v1/people?client_ref=${ref}`, `/v1/companies?client_ref=${ref}`]) {
        const reply = await client.get(path, keyOf(domain));
        expect(reply.status, `${path} via ${domain}`).toBe(200);
        expect(reply.body.data).toEqual([]);
        expect(reply.body.pagination).toEqual({ limit: 50, count: 0 });
      }
    }
    // Its own client_ref narrows nothing away.
    const own = await client.walk('/v1/people?client_ref=alpha', keyOf('alpha.example'));
    expect(own.rows.map((p) => p.id)).toEqual(peopleOn(world, 'alpha.example').map((p) => p.id));
  });

  it('never widens a subdomain’s key to its parent domain: domain=alpha.example through the shop key reads only the shop', async () => {
    // `domain` matches a domain and its subdomains, and the key is a ceiling: the parent-domain
    // filter selects the shop's own site and nothing of alpha.example.
    const shop = keyOf('shop.alpha.example');
    const expected = peopleOn(world, 'shop.alpha.example').map((p) => p.id);
    const onlyParent = new Set(peopleOn(world, 'alpha.example').filter((p) => !visitOn(p, 'shop.alpha.example')).map((p) => p.id));
    const { rows } = await client.walk('/v1/people?domain=alpha.example', shop, 10);
    expect(rows.map((p) => p.id)).toEqual(expected);
    expect(rows.filter((p) => onlyParent.has(p.id))).toEqual([]);
    expect(rows.every((p) => p.domain === 'shop.alpha.example')).toBe(true);
    const stats = await client.get('/v1/stats?domain=alpha.example', shop);
    expect(stats.body.data.totalPeople).toBe(expected.length);
    // And the parent's key filtered to the separately registered subdomain reads nothing.
    const parent = await client.get('/v1/people?domain=shop.alpha.example', keyOf('alpha.example'));
    expect(parent.status).toBe(200);
    expect(parent.body.data).toEqual([]);
    expect(parent.body.pagination).toEqual({ limit: 50, count: 0 });
  });

  /* ---------- events ---------- */

  it('reads a person’s journey through a scoped key only from its own site, or 404 where the person was not seen', async () => {
    const id = world.travellerId;
    const person = world.people.find((p) => p.id === id)!;
    for (const domain of DOMAINS) {
      const key = keyOf(domain);
      if (!visitOn(person, domain)) {
        const reply = await client.get(`/v1/people/${id}/events`, key);
        expect(reply.status, `${id} events via ${domain}`).toBe(404);
        expect(errorCode(reply)).toBe('not_found');
        continue;
      }
      const { rows } = await client.walk(`/v1/people/${id}/events`, key, 40);
      expect(rows.map((e) => e.eventId), `${id} events via ${domain}`).toEqual(journey(world, id, [domain]).map((e) => e.eventId));
      expect(rows.every((e) => e.domain === domain && e.url.startsWith(`https://${domain}/`))).toBe(true);
    }
    // Through beta's key the traveller's journey is non-empty and all beta.
    const beta = await client.walk(`/v1/people/${id}/events`, keyOf('beta.example'), 100);
    expect(beta.rows.length).toBeGreaterThan(50);
    expect(new Set(beta.rows.map((e) => e.domain))).toEqual(new Set(['beta.example']));
    // event_type narrows within the site, never beyond it.
    const clicks = await client.walk(`/v1/people/${id}/events?event_type=click`, keyOf('beta.example'), 100);
    expect(clicks.rows.map((e) => e.eventId)).toEqual(journey(world, id, ['beta.example']).filter((e) => e.eventType === 'click').map((e) => e.eventId));
  });

  it('splits a journey among the keys of the sites the person was seen on: together they give the account key’s journey there, without overlap', async () => {
    const id = world.travellerId;
    const person = world.people.find((p) => p.id === id)!;
    const seenOn = person.visits.map((v) => v.domain);
    const account = await client.walk(`/v1/people/${id}/events`, world.accountKey, 100);
    const accountOnSeen = account.rows.filter((e) => seenOn.includes(e.domain)).map((e) => e.eventId);
    const pieces: string[] = [];
    for (const domain of seenOn) pieces.push(...(await client.walk(`/v1/people/${id}/events`, keyOf(domain), 100)).rows.map((e) => e.eventId));
    expect(new Set(pieces).size).toBe(pieces.length);
    expect([...pieces].sort()).toEqual([...accountOnSeen].sort());
    expect(accountOnSeen.length).toBeGreaterThan(0);
  });

  /* ---------- companies ---------- */

  it('lists through a scoped key only the companies with a person on its site, with that site’s figures', async () => {
    for (const domain of DOMAINS) {
      const expected = companiesOn(world, domain);
      const { rows } = await client.walk('/v1/companies', keyOf(domain), 5);
      expect(rows.map((c) => ({ id: c.id, visitCount: c.visitCount, firstSeen: c.firstSeen, lastSeen: c.lastSeen })), domain).toEqual(expected);
    }
  });

  it('answers 404 for a company with no person on the key’s site, and the site’s figures for one that has', async () => {
    const allCompanies = Array.from({ length: 12 }, (_, i) => `co_${String(i).padStart(2, '0')}`);
    let refused = 0;
    for (const domain of DOMAINS) {
      const visible = new Map(companiesOn(world, domain).map((c) => [c.id, c]));
      for (const id of allCompanies) {
        const reply = await client.get(`/v1/companies/${id}`, keyOf(domain));
        if (visible.has(id)) {
          expect(reply.status, `${id} via ${domain}`).toBe(200);
          expect(reply.body.data).toMatchObject(visible.get(id)!);
        } else {
          refused++;
          expect(reply.status, `${id} via ${domain}`).toBe(404);
          expect(errorCode(reply)).toBe('not_found');
        }
      }
    }
    expect(refused).toBeGreaterThan(0); // the fixture has companies absent from some sites
  });

  /* ---------- stats ---------- */

  it('counts in /v1/stats only the scoped key’s own site', async () => {
    for (const domain of DOMAINS) {
      for (const days of [undefined, 2, 365]) {
        const reply = await client.get(`/v1/stats${days ? `?days=${days}` : ''}`, keyOf(domain));
        expect(reply.status).toBe(200);
        expect(reply.body.data, `${domain} days=${days}`).toMatchObject({
          totalPeople: peopleOn(world, domain).length,
          totalCompanies: companiesOn(world, domain).length,
          recentEvents: recentEventsOn(world, domain, days ?? 30),
          periodDays: days ?? 30,
        });
      }
    }
    // The account key counts more than any one site.
    const account = await client.get('/v1/stats', world.accountKey);
    expect(account.body.data.totalPeople).toBe(world.people.length);
  });

  /* ---------- exports ---------- */

  it('refuses POST /v1/exports with any scoped key: 403 scope_not_supported', async () => {
    for (const domain of DOMAINS) {
      for (const body of [undefined, '{}', JSON.stringify({ timeframe: '7d', domains: [domain] })]) {
        const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
        const reply = await client.send('POST', '/v1/exports', keyOf(domain), body, headers);
        expect(reply.status, `${domain} body=${body}`).toBe(403);
        expect(errorCode(reply)).toBe('scope_not_supported');
      }
    }
    // An account key is not refused for scope: the same request starts an export.
    const account = await client.send('POST', '/v1/exports', world.accountKey, '{}', { 'content-type': 'application/json' });
    expect(account.status).toBe(202);
    expect(account.body).toMatchObject({ jobId: expect.stringMatching(/^exp_/), status: 'processing', statusUrl: `/v1/exports/${account.body.jobId}` });
    await world.api.exportsIdle();
  });

  /* ---------- cursors ---------- */

  it('rejects a cursor issued to a scoped key when any other key presents it: 400 invalid_cursor', async () => {
    const issuer = keyOf('alpha.example');
    const cases: [string, string][] = [
      ['alpha.example', '/v1/people?limit=5'],
      ['alpha.example', '/v1/companies?limit=3'],
      ['beta.example', `/v1/people/${world.travellerId}/events?limit=10`],
      ['shop.alpha.example', '/v1/people?hot_leads=false&limit=4'],
    ];
    for (const [domain, path] of cases) {
      const owner = keyOf(domain);
      const first = await client.get(path, owner);
      expect(first.status, path).toBe(200);
      const cursor = first.body.pagination.nextCursor;
      expect(cursor, `${path} via ${domain} has a next page`).toEqual(expect.any(String));
      const next = `${path}&cursor=${encodeURIComponent(cursor)}`;
      // The issuing key may use it.
      const own = await client.get(next, owner);
      expect(own.status).toBe(200);
      const others = [world.accountKey, world.secondAccountKey, world.otherAccountKey, ...DOMAINS.filter((d) => d !== domain).map(keyOf)];
      for (const other of others) {
        const reply = await client.get(next, other);
        // A key that cannot see the person may answer 404 instead; either way, no page.
        if (reply.status === 404 && path.includes('/events')) continue;
        expect(reply.status, `${path} of ${domain} replayed by another key`).toBe(400);
        expect(errorCode(reply)).toBe('invalid_cursor');
      }
    }
    // A cursor of the account key is no good to a scoped key either.
    const accountPage = await client.get('/v1/people?limit=5', world.accountKey);
    const replay = await client.get(`/v1/people?limit=5&cursor=${encodeURIComponent(accountPage.body.pagination.nextCursor)}`, issuer);
    expect(replay.status).toBe(400);
    expect(errorCode(replay)).toBe('invalid_cursor');
  });

  /* ---------- accounts ---------- */

  it('keeps two accounts apart even though both registered alpha.example', async () => {
    const b = world.otherAccountKey;
    const bPeople = await client.walk('/v1/people', b);
    expect(bPeople.rows.map((p) => p.id)).toEqual(['per_b_only']);
    expect(bPeople.rows[0].domain).toBe('alpha.example');
    expect((await client.walk('/v1/people?domain=alpha.example', b)).rows.map((p) => p.id)).toEqual(['per_b_only']);
    expect((await client.walk('/v1/people?client_ref=alpha', b)).rows.map((p) => p.id)).toEqual(['per_b_only']);
    for (const id of ['per_000', world.travellerId]) {
      for (const path of [`/v1/people/${id}`, `/v1/people/${id}/events`]) {
        const reply = await client.get(path, b);
        expect(reply.status, `${path} via account B`).toBe(404);
        expect(errorCode(reply)).toBe('not_found');
      }
    }
    expect((await client.get('/v1/companies/co_01', b)).status).toBe(404);
    expect((await client.walk('/v1/companies', b)).rows).toEqual([]);
    expect((await client.get('/v1/stats', b)).body.data).toMatchObject({ totalPeople: 1, totalCompanies: 0, recentEvents: 0 });

    // And account A, through any of its keys, never sees B's person.
    for (const key of [world.accountKey, world.secondAccountKey, keyOf('alpha.example')]) {
      for (const path of ['/v1/people/per_b_only', '/v1/people/per_b_only/events']) {
        const reply = await client.get(path, key);
        expect(reply.status, path).toBe(404);
        expect(errorCode(reply)).toBe('not_found');
      }
      const all = await client.walk('/v1/people?domain=alpha.example', key);
      expect(all.rows.some((p) => p.id === 'per_b_only')).toBe(false);
    }
    const alphaStats = await client.get('/v1/stats', keyOf('alpha.example'));
    expect(alphaStats.body.data.totalPeople).toBe(peopleOn(world, 'alpha.example').length);
  });
});
