import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, errorCode } from '../support/client.ts';
import { addAlphaFamily, companiesIn, DOMAINS, figuresIn, isoS, journeyIn, narrow, peopleIn, recentEventsIn, scopeOf } from '../support/scope-oracle.ts';
import { MATRIX } from '../support/targets.ts';
import { createWorld, NOW, type World } from '../support/world.ts';

const HOUR_S = 3_600;
const DAY_S = 86_400;
const nowS = Math.floor(NOW / 1000);

/** What the account key shows of a person: every site's visits summed. */
const accountFigures = (world: World, id: string) => figuresIn(world.people.find((p) => p.id === id)!, DOMAINS)!;
/** The activity and attribution fields of a person or company row. */
const figuresOf = (row: any) => ({ domain: row.domain, clientRef: row.clientRef, visitCount: row.visitCount, firstSeen: row.firstSeen, lastSeen: row.lastSeen });

describe.each(MATRIX)('domain-scoped keys ($name)', (target) => {
  let world: World;
  let client: ReturnType<typeof clientFor>;
  let close: () => Promise<void>;
  const keyOf = (domain: string) => world.scopedKeys[domain]!;

  beforeAll(async () => {
    world = await createWorld({ backend: target.backend });
    await addAlphaFamily(world);
    const started = await target.start(world.api);
    client = clientFor(started.call);
    close = started.close;
  });
  afterAll(async () => (await close(), await world.close()));

  /* ---------- people ---------- */

  it('lists through a scoped key exactly the people seen on its domain or its subdomains, in lastSeen then id order, across pages', async () => {
    expect(scopeOf('alpha.example')).toEqual(['alpha.example', 'shop.alpha.example']);
    for (const domain of DOMAINS) {
      const expected = peopleIn(world, scopeOf(domain)).map((p) => p.id);
      expect(expected.length, `fixture people on ${domain}`).toBeGreaterThan(0);
      const { rows, pages } = await client.walk('/v1/people', keyOf(domain), 7);
      expect(rows.map((p) => p.id), domain).toEqual(expected);
      expect(pages).toBe(Math.ceil(expected.length / 7));
    }
    // Page by page, the merge of the two sites neither repeats nor skips anyone.
    for (const limit of [1, 2]) {
      const { rows } = await client.walk('/v1/people', keyOf('alpha.example'), limit);
      expect(rows.map((p) => p.id), `limit ${limit}`).toEqual(peopleIn(world, scopeOf('alpha.example')).map((p) => p.id));
    }
  });

  it('labels every person a scoped key reads with their latest site in its scope and figures summed over its scope', async () => {
    for (const domain of DOMAINS) {
      const { rows } = await client.walk('/v1/people', keyOf(domain), 100);
      for (const row of rows) {
        const person = world.people.find((p) => p.id === row.id)!;
        expect({ id: row.id, ...figuresOf(row) }, `${row.id} via ${domain}`).toEqual({ id: person.id, ...figuresIn(person, scopeOf(domain)) });
        // The single-person endpoint tells the same story as the list.
        const one = await client.get(`/v1/people/${row.id}`, keyOf(domain));
        expect(one.status).toBe(200);
        expect(one.body.data).toEqual(row);
      }
    }
  });

  it('sums a person’s visits to a domain and its subdomain under the domain’s key, and leaves out the look-alike and other clients', async () => {
    const alpha = keyOf('alpha.example');
    const shop = keyOf('shop.alpha.example');
    const read = async (id: string, key: string) => figuresOf((await client.get(`/v1/people/${id}`, key)).body.data);
    // Seen last on alpha.example: 3 + 4 visits, alpha's first visit, alpha's last.
    expect(await read('per_900', alpha)).toEqual({ domain: 'alpha.example', clientRef: 'alpha', visitCount: 7, firstSeen: isoS(nowS - 30 * DAY_S), lastSeen: isoS(nowS - 2.5 * HOUR_S) });
    expect(await read('per_900', shop)).toEqual({ domain: 'shop.alpha.example', clientRef: 'alpha', visitCount: 4, firstSeen: isoS(nowS - 12 * DAY_S), lastSeen: isoS(nowS - 5 * HOUR_S) });
    // Seen last on beta.example, which alpha's key does not reach: attributed to the shop, its latest in scope.
    expect(await read('per_901', alpha)).toEqual({ domain: 'shop.alpha.example', clientRef: 'alpha', visitCount: 7, firstSeen: isoS(nowS - 20 * DAY_S), lastSeen: isoS(nowS - 26 * HOUR_S) });
    expect(await read('per_901', world.accountKey)).toMatchObject({ domain: 'beta.example', visitCount: 8 });
    // Both sites seen at the same second: the later-registered site (the higher key) wins, as with an account key's domain filter.
    expect(await read('per_902', alpha)).toEqual({ domain: 'shop.alpha.example', clientRef: 'alpha', visitCount: 2, firstSeen: isoS(nowS - 4 * DAY_S), lastSeen: isoS(nowS - 10 * HOUR_S) });
    const filtered = (await client.walk('/v1/people?domain=alpha.example', world.accountKey)).rows.find((p) => p.id === 'per_902');
    expect(filtered?.domain).toBe('shop.alpha.example');
    // The look-alike badalpha.example never counts: 2 visits on the shop, not 8.
    expect(await read('per_903', alpha)).toEqual({ domain: 'shop.alpha.example', clientRef: 'alpha', visitCount: 2, firstSeen: isoS(nowS - 9 * DAY_S), lastSeen: isoS(nowS - 7 * HOUR_S) });
    expect(await read('per_904', alpha)).toEqual({ domain: 'alpha.example', clientRef: 'alpha', visitCount: 1, firstSeen: isoS(nowS - 15 * DAY_S), lastSeen: isoS(nowS - 14 * DAY_S) });
    expect((await client.get('/v1/people/per_904', shop)).status).toBe(404);
    // per_902 ties per_010 (alpha.example) on lastSeen: the higher id comes first, on the list and across a page break.
    const ids = (await client.walk('/v1/people', alpha, 3)).rows.map((p) => p.id);
    expect(ids.indexOf('per_902') + 1).toBe(ids.indexOf('per_010'));
  });

  it('shows a person seen on sites of several scopes with the figures of each key’s scope, which differ from the account key’s', async () => {
    const partial = world.people.filter((p) => DOMAINS.some((d) => figuresIn(p, scopeOf(d)) && figuresIn(p, scopeOf(d))!.visitCount < accountFigures(world, p.id).visitCount));
    expect(partial.length).toBeGreaterThan(5);
    for (const person of partial) {
      const account = await client.get(`/v1/people/${person.id}`, world.accountKey);
      expect(account.status).toBe(200);
      // (Attribution aside: the account view breaks a tie between sites by load order, see per_902.)
      expect(account.body.data).toMatchObject({ visitCount: accountFigures(world, person.id).visitCount, firstSeen: accountFigures(world, person.id).firstSeen, lastSeen: accountFigures(world, person.id).lastSeen });
      for (const domain of DOMAINS.filter((d) => figuresIn(person, scopeOf(d)))) {
        const scoped = await client.get(`/v1/people/${person.id}`, keyOf(domain));
        expect(scoped.status, `${person.id} via ${domain}`).toBe(200);
        expect(figuresOf(scoped.body.data), `${person.id} via ${domain}`).toEqual(figuresIn(person, scopeOf(domain)));
        // Everything that is not activity or attribution reads the same.
        const strip = ({ visitCount, firstSeen, lastSeen, domain, clientRef, ...rest }: any) => rest;
        expect(strip(scoped.body.data)).toEqual(strip(account.body.data));
      }
    }
  });

  it('answers 404 not_found for a person of another client, on the person and on their events', async () => {
    for (const domain of DOMAINS) {
      const outsiders = world.people.filter((p) => !figuresIn(p, scopeOf(domain)));
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
    // The parent's visitor is not the subdomain's; the subdomain's visitor is the parent's.
    expect((await client.get('/v1/people/per_000', keyOf('shop.alpha.example'))).status).toBe(404);
    expect((await client.get(`/v1/people/${world.travellerId}`, keyOf('alpha.example'))).status).toBe(200);
  });

  it('gives the same 404 body for another client’s person as for an id that does not exist, so existence is not revealed', async () => {
    const key = keyOf('alpha.example');
    const other = world.people.find((p) => !figuresIn(p, scopeOf('alpha.example')))!.id; // exists, on another site
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

  it('returns an empty last page when a scoped key filters by a domain outside its scope', async () => {
    const key = keyOf('alpha.example');
    // Other clients, the look-alike, and a subdomain of alpha's with no site of its own.
    for (const other of ['beta.example', 'badalpha.example', 'gamma.example', 'www.alpha.example', 'www.shop.alpha.example']) {
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

  it('keeps the scope as a ceiling when a scoped key filters by a parent domain: the same people as with no filter', async () => {
    for (const [domain, parent] of [
      ['alpha.example', 'example'],
      ['shop.alpha.example', 'alpha.example'],
      ['shop.alpha.example', 'example'],
      ['beta.example', 'example'],
    ] as const) {
      const expected = peopleIn(world, scopeOf(domain));
      const { rows } = await client.walk(`/v1/people?domain=${parent}`, keyOf(domain), 10);
      expect(rows.map((p) => p.id), `${parent} via ${domain}`).toEqual(expected.map((p) => p.id));
      expect(rows.map(figuresOf)).toEqual(expected.map((p) => figuresIn(p, scopeOf(domain))));
      const stats = await client.get(`/v1/stats?domain=${parent}`, keyOf(domain));
      expect(stats.body.data.totalPeople).toBe(expected.length);
    }
    // The shop's key never reads alpha.example's own visitors, nor their visits.
    const shop = await client.walk('/v1/people?domain=alpha.example', keyOf('shop.alpha.example'));
    expect(shop.rows.every((p) => p.domain === 'shop.alpha.example')).toBe(true);
    expect(shop.rows.some((p) => p.id === 'per_000')).toBe(false);
  });

  it('narrows the domain’s key to its subdomain with domain=shop.alpha.example, with figures over the shop alone', async () => {
    const alpha = keyOf('alpha.example');
    const shopSites = narrow(scopeOf('alpha.example'), { domain: 'shop.alpha.example' });
    expect(shopSites).toEqual(['shop.alpha.example']);
    const expected = peopleIn(world, shopSites);
    const { rows } = await client.walk('/v1/people?domain=shop.alpha.example', alpha, 4);
    expect(rows.map((p) => ({ id: p.id, ...figuresOf(p) }))).toEqual(expected.map((p) => ({ id: p.id, ...figuresIn(p, shopSites) })));
    // per_900 shows the shop's 4 visits, not alpha's 7.
    expect(rows.find((p) => p.id === 'per_900')).toMatchObject({ visitCount: 4, domain: 'shop.alpha.example' });
    // The same page as the shop's own key.
    expect(rows).toEqual((await client.walk('/v1/people', keyOf('shop.alpha.example'), 4)).rows);
    const companies = await client.walk('/v1/companies?domain=shop.alpha.example', alpha, 4);
    expect(companies.rows.map((c) => ({ id: c.id, visitCount: c.visitCount, firstSeen: c.firstSeen, lastSeen: c.lastSeen }))).toEqual(companiesIn(world, shopSites));
    const stats = await client.get('/v1/stats?domain=shop.alpha.example&days=365', alpha);
    expect(stats.body.data).toMatchObject({ totalPeople: expected.length, totalCompanies: companiesIn(world, shopSites).length, recentEvents: recentEventsIn(world, shopSites, 365) });
    const events = await client.walk('/v1/people/per_900/events?domain=shop.alpha.example', alpha, 5);
    expect(events.rows.map((e) => e.eventId)).toEqual(journeyIn(world, 'per_900', shopSites).map((e) => e.eventId));
  });

  it('lists for every scoped key exactly the people the account key lists with domain=<the key’s domain>, and nobody else', async () => {
    for (const domain of DOMAINS) {
      const account = await client.walk(`/v1/people?domain=${domain}`, world.accountKey, 100);
      const scoped = await client.walk('/v1/people', keyOf(domain), 100);
      expect(scoped.rows.map((p) => p.id).sort(), domain).toEqual(account.rows.map((p) => p.id).sort());
      expect(scoped.rows.length, domain).toBeGreaterThan(0);
    }
  });

  it('returns an empty last page when a scoped key filters by another client’s client_ref', async () => {
    const cases: [string, string][] = [
      ['alpha.example', 'beta'],
      ['alpha.example', 'bad'],
      ['shop.alpha.example', 'bad'],
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
    expect(own.rows.map((p) => p.id)).toEqual(peopleIn(world, scopeOf('alpha.example')).map((p) => p.id));
  });

  /* ---------- events ---------- */

  it('reads a person’s journey through a scoped key only from the sites of its scope, or 404 where the person was not seen there', async () => {
    for (const id of [world.travellerId, 'per_900']) {
      const person = world.people.find((p) => p.id === id)!;
      for (const domain of DOMAINS) {
        const key = keyOf(domain);
        if (!figuresIn(person, scopeOf(domain))) {
          const reply = await client.get(`/v1/people/${id}/events`, key);
          expect(reply.status, `${id} events via ${domain}`).toBe(404);
          expect(errorCode(reply)).toBe('not_found');
          continue;
        }
        const { rows } = await client.walk(`/v1/people/${id}/events`, key, 6);
        expect(rows.map((e) => e.eventId), `${id} events via ${domain}`).toEqual(journeyIn(world, id, scopeOf(domain)).map((e) => e.eventId));
        expect(rows.every((e) => scopeOf(domain).includes(e.domain) && e.url.startsWith(`https://${e.domain}/`))).toBe(true);
      }
    }
    // alpha's key reads per_900's journey on both of its sites, interleaved by time.
    const both = await client.walk('/v1/people/per_900/events', keyOf('alpha.example'), 100);
    expect(new Set(both.rows.map((e) => e.domain))).toEqual(new Set(['alpha.example', 'shop.alpha.example']));
    // Through beta's key the traveller's journey is non-empty and all beta.
    const beta = await client.walk(`/v1/people/${world.travellerId}/events`, keyOf('beta.example'), 100);
    expect(beta.rows.length).toBeGreaterThan(50);
    expect(new Set(beta.rows.map((e) => e.domain))).toEqual(new Set(['beta.example']));
    // event_type narrows within the scope, never beyond it.
    const clicks = await client.walk(`/v1/people/${world.travellerId}/events?event_type=click`, keyOf('alpha.example'), 100);
    expect(clicks.rows.map((e) => e.eventId)).toEqual(journeyIn(world, world.travellerId, scopeOf('alpha.example')).filter((e) => e.eventType === 'click').map((e) => e.eventId));
    expect(clicks.rows.length).toBeGreaterThan(0);
  });

  it('splits a journey among the keys of disjoint scopes: together they give the account key’s journey there, without overlap', async () => {
    for (const id of [world.travellerId, 'per_900', 'per_901']) {
      const keys = ['alpha.example', 'beta.example', 'badalpha.example', 'gamma.example'];
      const covered = keys.flatMap(scopeOf);
      const account = await client.walk(`/v1/people/${id}/events`, world.accountKey, 100);
      const accountThere = account.rows.filter((e) => covered.includes(e.domain)).map((e) => e.eventId);
      const pieces: string[] = [];
      for (const domain of keys) {
        const reply = await client.get(`/v1/people/${id}/events?limit=1`, keyOf(domain));
        if (reply.status === 404) continue;
        pieces.push(...(await client.walk(`/v1/people/${id}/events`, keyOf(domain), 100)).rows.map((e) => e.eventId));
      }
      expect(new Set(pieces).size).toBe(pieces.length);
      expect([...pieces].sort()).toEqual([...accountThere].sort());
    }
  });

  /* ---------- companies ---------- */

  it('lists through a scoped key only the companies with a person in its scope, with their figures over its scope', async () => {
    for (const domain of DOMAINS) {
      const expected = companiesIn(world, scopeOf(domain));
      const { rows } = await client.walk('/v1/companies', keyOf(domain), 5);
      expect(rows.map((c) => ({ id: c.id, visitCount: c.visitCount, firstSeen: c.firstSeen, lastSeen: c.lastSeen })), domain).toEqual(expected);
      const single = await client.walk('/v1/companies', keyOf(domain), 1);
      expect(single.rows).toEqual(rows);
    }
    // co_03 has per_900 and per_901 on both alpha sites: alpha's key sums them.
    const co03 = companiesIn(world, scopeOf('alpha.example')).find((c) => c.id === 'co_03')!;
    const co03Shop = companiesIn(world, ['shop.alpha.example']).find((c) => c.id === 'co_03')!;
    expect(co03.visitCount).toBeGreaterThan(co03Shop.visitCount);
  });

  it('answers 404 for a company with no person in the key’s scope, and the scope’s figures for one that has', async () => {
    const allCompanies = Array.from({ length: 12 }, (_, i) => `co_${String(i).padStart(2, '0')}`);
    let refused = 0;
    for (const domain of DOMAINS) {
      const visible = new Map(companiesIn(world, scopeOf(domain)).map((c) => [c.id, c]));
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

  it('counts in /v1/stats only the sites of the scoped key’s scope', async () => {
    for (const domain of DOMAINS) {
      for (const days of [undefined, 2, 365]) {
        const reply = await client.get(`/v1/stats${days ? `?days=${days}` : ''}`, keyOf(domain));
        expect(reply.status).toBe(200);
        expect(reply.body.data, `${domain} days=${days}`).toMatchObject({
          totalPeople: peopleIn(world, scopeOf(domain)).length,
          totalCompanies: companiesIn(world, scopeOf(domain)).length,
          recentEvents: recentEventsIn(world, scopeOf(domain), days ?? 30),
          periodDays: days ?? 30,
        });
      }
    }
    // alpha's key counts the shop's people too, and the account key counts more than any scope.
    const alpha = await client.get('/v1/stats', keyOf('alpha.example'));
    const shop = await client.get('/v1/stats', keyOf('shop.alpha.example'));
    expect(alpha.body.data.totalPeople).toBeGreaterThan(shop.body.data.totalPeople);
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
      ['alpha.example', '/v1/people?domain=shop.alpha.example&limit=3'],
      ['beta.example', `/v1/people/${world.travellerId}/events?limit=10`],
      ['shop.alpha.example', '/v1/people?hot_leads=false&limit=4'],
      ['shop.alpha.example', `/v1/people/${world.travellerId}/events?limit=10`],
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
    expect(alphaStats.body.data.totalPeople).toBe(peopleIn(world, scopeOf('alpha.example')).length);
  });
});
