import type { CheckContext, Walk } from '../context.ts';
import { lastSeenAfterIfKnown } from '../choices.ts';
import type { Check } from '../types.ts';
import { SECTION, withQuery, eventsPath, domainsOf, domainWithin, show, instant, assertPage, accountPeople, accountCompanies, longestJourney, walkPages, assertSameRows, assertDescending, cursorOf, flipMiddle, SMALL, SMALL_PAGES } from './list-support.ts';

/** The account's people or companies, walked once with limit 100. */
const accountList = (t: CheckContext, list: 'people' | 'companies') => (list === 'people' ? accountPeople(t) : accountCompanies(t));

export const pagingChecks: Check[] = [
  {
    id: 'paging.limit-honoured',
    section: SECTION,
    title: '`limit` 1 and 100 are honoured: at most that many rows, and pagination.limit echoes the value',
    async run(t: CheckContext) {
      const people = await accountPeople(t);
      const one = await t.get('/v1/people?limit=1');
      assertPage(t, one, 'GET /v1/people?limit=1', 1);
      if (people.rows.length === 0) t.notApplicable('the account has no people');
      t.assert(one.body.data.length === 1, `GET /v1/people?limit=1 returned ${one.body.data.length} rows though the account has people`);
      if (people.rows.length > 1) t.assert(typeof one.body.pagination.nextCursor === 'string', 'GET /v1/people?limit=1 has no nextCursor though the account has more than one person');
      const first = people.pages[0]!;
      assertPage(t, first, 'GET /v1/people?limit=100', 100);
      t.assert(first.body.data.length === Math.min(100, people.rows.length), `GET /v1/people?limit=100 returned ${first.body.data.length} rows of ${people.rows.length}${people.complete ? '' : '+'}`);
      const companies = await accountCompanies(t);
      assertPage(t, companies.pages[0]!, 'GET /v1/companies?limit=100', 100);
      const c1 = await t.get('/v1/companies?limit=1');
      assertPage(t, c1, 'GET /v1/companies?limit=1', 1);
    },
  },
  {
    id: 'paging.limit-out-of-range-400',
    section: SECTION,
    title: 'A `limit` outside 1..100 or not an integer answers 400 validation_error naming limit',
    async run(t: CheckContext) {
      const { person } = await longestJourney(t);
      const cases: [string, string][] = [
        ['/v1/people', '0'],
        ['/v1/people', '101'],
        ['/v1/people', '-1'],
        ['/v1/people', 'abc'],
        ['/v1/people', '1.5'],
        ['/v1/companies', '101'],
        [eventsPath(person.id), '0'],
      ];
      for (const [path, limit] of cases) {
        const what = `GET ${path}?limit=${limit}`;
        const reply = await t.get(withQuery(path, { limit }));
        t.error(reply, 400, 'validation_error', what);
        t.assert(/limit/i.test(reply.body.error.message), `${what}: the message ${show(reply.body.error.message)} does not name limit`);
      }
    },
  },
  {
    id: 'paging.sort-order-reserved',
    section: SECTION,
    title: 'The reserved parameters `sort` and `order` answer 400 bad_request on every list endpoint',
    async run(t: CheckContext) {
      const { person } = await longestJourney(t);
      for (const path of ['/v1/people', '/v1/companies', eventsPath(person.id)]) {
        t.error(await t.get(withQuery(path, { sort: 'lastSeen' })), 400, 'bad_request', `GET ${path}?sort=lastSeen`);
        t.error(await t.get(withQuery(path, { order: 'asc' })), 400, 'bad_request', `GET ${path}?order=asc`);
      }
    },
  },
  {
    id: 'paging.response-shape',
    section: SECTION,
    title: 'Every list page is {data, pagination: {limit, count, nextCursor?}} with count = data.length',
    async run(t: CheckContext) {
      const people = await accountPeople(t);
      const companies = await accountCompanies(t);
      const { person, walk: journey } = await longestJourney(t);
      people.pages.forEach((r, i) => assertPage(t, r, `GET /v1/people?limit=100 page ${i + 1}`, 100));
      companies.pages.forEach((r, i) => assertPage(t, r, `GET /v1/companies?limit=100 page ${i + 1}`, 100));
      journey.pages.forEach((r, i) => {
        const what = `GET ${eventsPath(person.id)}?limit=100 page ${i + 1}`;
        assertPage(t, r, what, 100);
        const summary = r.body.person;
        t.assert(summary && typeof summary === 'object' && summary.id === person.id, `${what}: person summary is ${show(summary)}, not the person ${person.id}`);
      });
      for (const [walk, what] of [[people, 'people'], [companies, 'companies'], [journey, 'events']] as const) {
        walk.pages.slice(0, -1).forEach((r, i) => t.assert(typeof r.body.pagination.nextCursor === 'string', `${what} page ${i + 1} is not the last yet has no nextCursor`));
      }
    },
  },
  ...(['people', 'companies'] as const).map(
    (list): Check => ({
      id: `paging.${list}-walk-consistent`,
      section: SECTION,
      title: `Paging ${list} by ${SMALL} gives the same rows in the same order as paging by 100: no duplicates, no gaps`,
      async run(t: CheckContext) {
        const big = await accountList(t, list);
        if (big.rows.length <= SMALL) t.notApplicable(`the account has ${big.rows.length} ${list}, not more than one page of ${SMALL}`);
        const small = await walkPages(t, `/v1/${list}`, SMALL, SMALL_PAGES);
        assertSameRows(t, small, SMALL, big, 'id', `GET /v1/${list}`);
      },
    }),
  ),
  {
    id: 'paging.events-walk-consistent',
    section: SECTION,
    title: `Paging a journey by ${SMALL} gives the same events in the same order as paging by 100: no duplicates, no gaps`,
    async run(t: CheckContext) {
      const { person, walk: big } = await longestJourney(t);
      if (big.rows.length <= SMALL) t.notApplicable(`the longest journey found has ${big.rows.length} events, not more than one page of ${SMALL}`);
      const small = await walkPages(t, eventsPath(person.id), SMALL, SMALL_PAGES);
      assertSameRows(t, small, SMALL, big, 'eventId', `GET ${eventsPath(person.id)}`);
    },
  },
  ...(['people', 'companies'] as const).map(
    (list): Check => ({
      id: `paging.${list}-order-lastseen-desc`,
      section: SECTION,
      title: `${list === 'people' ? 'People' : 'Companies'} are ordered by lastSeen descending across pages`,
      async run(t: CheckContext) {
        const walk = await accountList(t, list);
        if (walk.rows.length < 2) t.notApplicable(`fewer than two ${list}`);
        assertDescending(t, walk, 'lastSeen', `GET /v1/${list}`);
      },
    }),
  ),
  {
    id: 'paging.events-order-consistent',
    section: SECTION,
    title: 'A journey is ordered by timestamp in one direction throughout its pages',
    async run(t: CheckContext) {
      const { person, walk } = await longestJourney(t);
      const what = `GET ${eventsPath(person.id)}`;
      const times = walk.rows.map((e, i) => {
        const ms = instant(e?.timestamp);
        t.assert(!Number.isNaN(ms), `${what}: event ${i} has timestamp ${show(e?.timestamp)}, not a date-time`);
        return ms;
      });
      let direction = 0;
      for (let i = 1; i < times.length; i++) {
        const step = Math.sign(times[i]! - times[i - 1]!);
        if (step === 0) continue;
        if (direction === 0) direction = step;
        t.assert(step === direction, `${what}: event ${i} (${walk.rows[i].timestamp}) breaks the ${direction < 0 ? 'descending' : 'ascending'} order set by earlier events (previous ${walk.rows[i - 1].timestamp})`);
      }
      if (direction === 0) t.notApplicable('the journey has no two events with different timestamps');
    },
  },
  {
    id: 'paging.last-page',
    section: SECTION,
    title: 'The last page has no nextCursor and, unless it is the first page, is not empty',
    async run(t: CheckContext) {
      const walks: [string, Walk][] = [
        ['GET /v1/people', await accountPeople(t)],
        ['GET /v1/companies', await accountCompanies(t)],
      ];
      const { person, walk } = await longestJourney(t);
      walks.push([`GET ${eventsPath(person.id)}`, walk]);
      let checked = 0;
      for (const [what, w] of walks) {
        if (!w.complete) continue;
        const last = w.pages[w.pages.length - 1]!;
        t.assert(!('nextCursor' in (last.body.pagination ?? {})), `${what}: the last page carries nextCursor`);
        if (w.pages.length > 1) t.assert(last.body.data.length > 0, `${what}: the last page (page ${w.pages.length}) is empty; the previous page should have had no nextCursor`);
        checked++;
      }
      // A last page that exactly fills its page size is where an implementation most often hands out a cursor to an
      // empty page: ask for exactly the rows that remain.
      for (const [what, w] of walks.slice(0, 2)) {
        if (!w.complete || w.rows.length === 0) continue;
        const lastRows = w.pages[w.pages.length - 1]!.body.data.length;
        const cursor: string | undefined = w.pages.length > 1 ? w.pages[w.pages.length - 2]!.body.pagination.nextCursor : undefined;
        if (lastRows === 100) continue; // the walk itself already ended on a full page
        const path = what.slice('GET '.length);
        const url = withQuery(path, { limit: lastRows, cursor });
        const reply = await t.get(url);
        if (cursor && reply.status === 400 && reply.body?.error?.code === 'invalid_cursor') continue; // single-use or limit-bound cursors: not this statement
        assertPage(t, reply, `${what} asking for exactly the last ${lastRows} rows`, lastRows);
        t.assert(reply.body.data.length === lastRows, `${what}: asking for exactly the last ${lastRows} rows returned ${reply.body.data.length}`);
        t.assert(!('nextCursor' in reply.body.pagination), `${what}: a page holding exactly the last ${lastRows} rows carries a nextCursor (to an empty page)`);
        checked++;
      }
      if (checked === 0) t.notApplicable('no list could be walked to its end within the page budget');
    },
  },
  {
    id: 'paging.cursor-continues',
    section: SECTION,
    title: 'Passing nextCursor returns the page that follows exactly where the previous one ended',
    async run(t: CheckContext) {
      const big = await accountPeople(t);
      if (big.rows.length < 4) t.notApplicable('fewer than four people');
      const first = await t.get('/v1/people?limit=3');
      assertPage(t, first, 'GET /v1/people?limit=3', 3);
      const cursor = t.nextCursor(first, 'GET /v1/people?limit=3');
      const second = await t.get(withQuery('/v1/people', { limit: 3, cursor }));
      assertPage(t, second, 'GET /v1/people?limit=3&cursor=…', 3);
      const got = [...first.body.data, ...second.body.data].map((p: any) => p.id);
      const want = big.rows.slice(0, 6).map((p) => p.id);
      t.assert(JSON.stringify(got) === JSON.stringify(want), `two pages of 3 give ${show(got, 300)}, but the list starts ${show(want, 300)}`);
    },
  },
  {
    id: 'paging.cursor-tampered-400',
    section: SECTION,
    title: 'An edited, truncated, extended or made-up cursor answers 400 invalid_cursor',
    async run(t: CheckContext) {
      const cursor = await cursorOf(t, '/v1/people', 'GET /v1/people?limit=1');
      const forged = [
        ['flipped in the middle', flipMiddle(cursor)],
        ['truncated to half', cursor.slice(0, Math.max(1, Math.floor(cursor.length / 2)))],
        ['with characters appended', `${cursor}x1`],
        ['garbage', 'not-a-cursor'],
        ['base64 of an offset', btoa('{"offset":1}')],
        ['base64 of a position', btoa(JSON.stringify({ id: 'x', lastSeen: '2020-01-01T00:00:00Z' }))],
      ];
      for (const [how, value] of forged) {
        t.assert(value !== cursor, `could not forge a cursor ${how}`);
        t.error(await t.get(withQuery('/v1/people', { limit: 1, cursor: value })), 400, 'invalid_cursor', `GET /v1/people with a cursor ${how}`);
      }
    },
  },
  {
    id: 'paging.cursor-other-endpoint-400',
    section: SECTION,
    title: 'A cursor issued by another list endpoint answers 400 invalid_cursor',
    async run(t: CheckContext) {
      const people = await accountPeople(t);
      const peopleCursor = await cursorOf(t, '/v1/people', 'GET /v1/people?limit=1');
      const companyCursor = await cursorOf(t, '/v1/companies', 'GET /v1/companies?limit=1');
      t.error(await t.get(withQuery('/v1/people', { limit: 1, cursor: companyCursor })), 400, 'invalid_cursor', 'GET /v1/people with a companies cursor');
      t.error(await t.get(withQuery('/v1/companies', { limit: 1, cursor: peopleCursor })), 400, 'invalid_cursor', 'GET /v1/companies with a people cursor');
      const { person, walk } = await longestJourney(t);
      t.error(await t.get(withQuery(eventsPath(person.id), { limit: 1, cursor: peopleCursor })), 400, 'invalid_cursor', `GET ${eventsPath(person.id)} with a people cursor`);
      // A journey's cursor is for that journey: another person's events are another list.
      const other = people.rows.find((p) => p.id !== person.id && (Number(p.visitCount) || 0) > 0);
      if (walk.rows.length > 1 && other) {
        const eventsCursor = await cursorOf(t, eventsPath(person.id), `GET ${eventsPath(person.id)}?limit=1`);
        t.error(await t.get(withQuery(eventsPath(other.id), { limit: 1, cursor: eventsCursor })), 400, 'invalid_cursor', `GET ${eventsPath(other.id)} with ${person.id}'s events cursor`);
        t.error(await t.get(withQuery('/v1/people', { limit: 1, cursor: eventsCursor })), 400, 'invalid_cursor', 'GET /v1/people with an events cursor');
      }
    },
  },
  {
    id: 'paging.cursor-bound-to-filters',
    section: SECTION,
    title: 'A cursor replayed with different filters answers 400 invalid_cursor',
    async run(t: CheckContext) {
      const people = await accountPeople(t);
      const domains = [...domainsOf(people).entries()].sort((a, b) => b[1] - a[1]).map(([d]) => d);
      const domain = domains[0];
      if (!domain) t.notApplicable('no person carries a domain');
      const path = withQuery('/v1/people', { domain });
      const cursor = await cursorOf(t, path, `GET ${path}&limit=1`);
      // The cursor is good where it was issued …
      assertPage(t, await t.get(withQuery(path, { limit: 1, cursor })), `GET ${path} with its own cursor`, 1);
      // … and nowhere else.
      t.error(await t.get(withQuery('/v1/people', { limit: 1, cursor })), 400, 'invalid_cursor', `GET /v1/people without domain, with a cursor issued for domain=${domain}`);
      const other = domains.find((d) => !domainWithin(d, domain) && !domainWithin(domain, d));
      if (other) {
        t.error(await t.get(withQuery('/v1/people', { domain: other, limit: 1, cursor })), 400, 'invalid_cursor', `GET /v1/people?domain=${other} with a cursor issued for domain=${domain}`);
      }
      const after = people.rows[Math.floor(people.rows.length / 2)]?.lastSeen;
      // Only with a known lastSeen-after name: an unknown parameter may be refused for being unknown.
      const lastSeen = await lastSeenAfterIfKnown(t, 'people');
      if (typeof after === 'string' && lastSeen) {
        const lsPath = withQuery('/v1/people', { [lastSeen.param]: after });
        t.error(await t.get(withQuery(lsPath, { limit: 1, cursor })), 400, 'invalid_cursor', `GET ${lsPath} with a cursor issued for domain=${domain}`);
      }
    },
  },
];
