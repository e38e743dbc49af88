import type { CheckContext } from '../context.ts';
import type { Check } from '../types.ts';
import { accountCompanies, accountPeople, eventsPath } from './list-support.ts';
import { FIELDS, PERSON, COMPANY_DATA, COMPANY, EVENT, PERSON_SUMMARY, STATISTICS, fieldProblems, report, isUtcZ, canonical, somePeople, someCompanies, sample, unknownIdLike, eventSample, someEvents, isClick, isScroll, carries, getStats } from './resource-fields.ts';

/** Fails unless GET `path` answers {data} equal to the row the list gave. */
async function assertSameAsRow(t: CheckContext, path: string, row: unknown): Promise<void> {
  const reply = await t.get(path);
  t.status(reply, 200, `GET ${path}`);
  t.assert(reply.body?.data && typeof reply.body.data === 'object', `GET ${path} has no data object: ${reply.text.slice(0, 200)}`);
  t.assert(canonical(reply.body.data) === canonical(row), `GET ${path} differs from the list row:\n  one:  ${canonical(reply.body.data).slice(0, 600)}\n  list: ${canonical(row).slice(0, 600)}`);
}

export const resourceChecks: Check[] = [
  {
    id: 'resources.person-fields',
    section: FIELDS,
    title: 'Every person has id, visitCount, firstSeen, lastSeen and isHotLead, and each Person field present has the type of the spec table',
    async run(t: CheckContext) {
      const rows = await somePeople(t);
      report(t, rows.flatMap((row, i) => fieldProblems(row, PERSON, `person ${row?.id ?? `#${i}`}`)));
      report(t, rows.filter((row) => row.visitCount < 0).map((row) => `person ${row.id} has visitCount ${row.visitCount}`));
    },
  },
  {
    id: 'resources.person-company-data',
    section: FIELDS,
    title: "A person's companyData, when given, is an object with companyId, name, domain, standardizedIndustry, location and employeeCount of the stated types",
    async run(t: CheckContext) {
      const rows = await somePeople(t);
      const withData = rows.filter((row) => row.companyData !== undefined && row.companyData !== null);
      if (withData.length === 0) t.notApplicable('no person walked carries companyData');
      report(t, withData.flatMap((row) => fieldProblems(row.companyData, COMPANY_DATA, `companyData of person ${row.id}`)));
    },
  },
  {
    id: 'resources.person-by-id',
    section: 'GET /v1/people/{id}',
    title: 'GET /v1/people/{id} answers {data: Person} equal to the row of the list',
    async run(t: CheckContext) {
      const rows = await somePeople(t);
      const picked = sample(rows, (row) => row.companyData == null, (row) => row.isHotLead === true, (row) => row.companyData != null);
      for (const row of picked) await assertSameAsRow(t, `/v1/people/${encodeURIComponent(row.id)}`, row);
    },
  },
  {
    id: 'resources.person-unknown-404',
    section: 'GET /v1/people/{id}',
    title: 'GET /v1/people/{id} for a person that does not exist answers 404 not_found',
    async run(t: CheckContext) {
      const { rows } = await accountPeople(t);
      const id = rows.length > 0 ? unknownIdLike(String(rows[0].id), new Set(rows.map((r) => r.id))) : 'per_harness_no_such_person';
      t.error(await t.get(`/v1/people/${encodeURIComponent(id)}`), 404, 'not_found', `GET /v1/people/${id}`);
    },
  },
  {
    id: 'resources.events-unknown-person-404',
    section: 'GET /v1/people/{id}/events',
    title: 'GET /v1/people/{id}/events for a person that does not exist answers 404 not_found, not an empty journey',
    async run(t: CheckContext) {
      const { rows } = await accountPeople(t);
      const id = rows.length > 0 ? unknownIdLike(String(rows[0].id), new Set(rows.map((r) => r.id))) : 'per_harness_no_such_person';
      t.error(await t.get(eventsPath(id)), 404, 'not_found', `GET /v1/people/${id}/events`);
    },
  },
  {
    id: 'resources.company-fields',
    section: FIELDS,
    title: 'Every company has id, name, visitCount, firstSeen, lastSeen and isHotCompany, and each Company field present has the type of the spec table',
    async run(t: CheckContext) {
      const rows = await someCompanies(t);
      report(t, rows.flatMap((row, i) => fieldProblems(row, COMPANY, `company ${row?.id ?? `#${i}`}`)));
    },
  },
  {
    id: 'resources.company-by-id',
    section: 'GET /v1/companies/{id}',
    title: 'GET /v1/companies/{id} answers {data: Company} equal to the row of the list',
    async run(t: CheckContext) {
      const rows = await someCompanies(t);
      for (const row of sample(rows, (row) => row.isHotCompany === true)) await assertSameAsRow(t, `/v1/companies/${encodeURIComponent(row.id)}`, row);
    },
  },
  {
    id: 'resources.company-unknown-404',
    section: 'GET /v1/companies/{id}',
    title: 'GET /v1/companies/{id} for a company that does not exist answers 404 not_found',
    async run(t: CheckContext) {
      const { rows } = await accountCompanies(t);
      const id = rows.length > 0 ? unknownIdLike(String(rows[0].id), new Set(rows.map((r) => r.id))) : 'com_harness_no_such_company';
      t.error(await t.get(`/v1/companies/${encodeURIComponent(id)}`), 404, 'not_found', `GET /v1/companies/${id}`);
    },
  },
  {
    id: 'resources.event-fields',
    section: FIELDS,
    title: 'Every event has eventId, sessionId, eventType, timestamp and url as strings, and each other Event field present has the type of the spec table',
    async run(t: CheckContext) {
      const events = await someEvents(t);
      const problems = events.flatMap((event, i) => fieldProblems(event, EVENT, `event ${event?.eventId ?? `#${i}`}`));
      // Present-but-null is no better than absent for the five fields the spec says are always present.
      report(t, problems);
      report(t, events.flatMap((event) => (['eventId', 'sessionId', 'eventType', 'url'] as const).filter((k) => event[k] === '').map((k) => `event ${event.eventId} has an empty ${k}`)));
    },
  },
  {
    id: 'resources.event-click-fields',
    section: FIELDS,
    title: 'clickElement and clickHref belong to click events: a click event carries clickElement, and no other event carries either',
    async run(t: CheckContext) {
      const events = await someEvents(t);
      const clicks = events.filter(isClick);
      const others = events.filter((e) => !isClick(e));
      const problems = [
        ...clicks.filter((e) => typeof e.clickElement !== 'string').map((e) => `click event ${e.eventId} has clickElement ${JSON.stringify(e.clickElement)}`),
        ...others.flatMap((e) => ['clickElement', 'clickHref'].filter((k) => carries(e, k)).map((k) => `${e.eventType} event ${e.eventId} carries ${k} ${JSON.stringify(e[k])}`)),
      ];
      report(t, problems);
      if (clicks.length === 0) t.notApplicable(`the sampled journeys hold no click event (only ${[...new Set(events.map((e) => e.eventType))].join(', ')}); the non-click part held`);
    },
  },
  {
    id: 'resources.event-scroll-percentage',
    section: FIELDS,
    title: 'scrollPercentage belongs to scroll events and is an integer from 0 to 100',
    async run(t: CheckContext) {
      const events = await someEvents(t);
      const withScroll = events.filter((e) => carries(e, 'scrollPercentage'));
      if (withScroll.length === 0) t.notApplicable('no sampled event carries scrollPercentage');
      report(t, [
        ...withScroll
          .filter((e) => !Number.isInteger(e.scrollPercentage) || e.scrollPercentage < 0 || e.scrollPercentage > 100)
          .map((e) => `event ${e.eventId} has scrollPercentage ${JSON.stringify(e.scrollPercentage)}`),
        ...withScroll.filter((e) => !isScroll(e)).map((e) => `${e.eventType} event ${e.eventId}, not a scroll event, carries scrollPercentage`),
      ]);
    },
  },
  {
    id: 'resources.events-person-summary',
    section: 'GET /v1/people/{id}/events',
    title: 'The events response names its person: person has id (the path id), firstName, lastName, email and company matching the Person',
    async run(t: CheckContext) {
      const { journeys } = await eventSample(t);
      if (journeys.length === 0) t.notApplicable('no person to read a journey of');
      const problems: string[] = [];
      for (const { person, path, reply } of journeys) {
        const summary = reply.body?.person;
        const found = fieldProblems(summary, PERSON_SUMMARY, `person of GET ${path}`);
        problems.push(...found);
        if (found.length > 0) continue;
        if (summary.id !== person.id) problems.push(`person of GET ${path} has id ${JSON.stringify(summary.id)}`);
        for (const k of ['firstName', 'lastName', 'email', 'company']) {
          if ((summary[k] ?? null) !== (person[k] ?? null)) problems.push(`person of GET ${path} has ${k} ${JSON.stringify(summary[k])}, the Person has ${JSON.stringify(person[k])}`);
        }
      }
      report(t, problems);
    },
  },
  {
    id: 'resources.stats-fields',
    section: FIELDS,
    title: 'GET /v1/stats answers {data: Statistics}: totalPeople, totalCompanies, recentEvents and periodDays non-negative integers, dailyAverage a number, generatedAt a date-time',
    async run(t: CheckContext) {
      const stats = await getStats(t);
      report(t, fieldProblems(stats, STATISTICS, 'data of GET /v1/stats'));
      report(t, (['totalPeople', 'totalCompanies', 'recentEvents', 'periodDays', 'dailyAverage'] as const).filter((k) => stats[k] < 0).map((k) => `stats ${k} is ${stats[k]}`));
    },
  },
  {
    id: 'resources.stats-totals',
    section: 'GET /v1/stats',
    title: 'totalPeople and totalCompanies count the people and companies the lists hold (equal when the lists were walked to the end)',
    async run(t: CheckContext) {
      const [p, c] = [await accountPeople(t), await accountCompanies(t)];
      const stats = await getStats(t);
      const problems: string[] = [];
      for (const [name, walk, total] of [
        ['people', p, stats.totalPeople],
        ['companies', c, stats.totalCompanies],
      ] as const) {
        const field = name === 'people' ? 'totalPeople' : 'totalCompanies';
        if (!Number.isInteger(total)) problems.push(`stats ${field} is ${JSON.stringify(total)}`);
        else if (walk.complete && total !== walk.rows.length) problems.push(`stats ${field} is ${total}, but GET /v1/${name} lists ${walk.rows.length}`);
        else if (total < walk.rows.length) problems.push(`stats ${field} is ${total}, but GET /v1/${name} already listed ${walk.rows.length} in ${walk.pages.length} pages`);
      }
      report(t, problems);
    },
  },
  {
    id: 'resources.date-times-utc',
    section: FIELDS,
    title: 'Every date-time of people, companies, events and statistics is ISO 8601 in UTC with Z, never a numeric offset',
    async run(t: CheckContext) {
      const [p, c] = [await accountPeople(t), await accountCompanies(t)];
      const { events } = await eventSample(t);
      const stats = await getStats(t);
      const seen: [string, unknown][] = [
        ...p.rows.flatMap((r): [string, unknown][] => [
          [`person ${r.id} firstSeen`, r.firstSeen],
          [`person ${r.id} lastSeen`, r.lastSeen],
        ]),
        ...c.rows.flatMap((r): [string, unknown][] => [
          [`company ${r.id} firstSeen`, r.firstSeen],
          [`company ${r.id} lastSeen`, r.lastSeen],
        ]),
        ...events.map((e): [string, unknown] => [`event ${e.eventId} timestamp`, e.timestamp]),
        ['stats generatedAt', stats.generatedAt],
      ];
      report(t, seen.filter(([, v]) => v !== undefined && v !== null && !isUtcZ(v)).map(([what, v]) => `${what} is ${JSON.stringify(v)}`));
    },
  },
];
