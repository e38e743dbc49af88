import type { CheckContext } from '../context.ts';
import type { Check } from '../types.ts';

const FIELDS = 'Resources and their fields';

/** ISO 8601 in UTC with `Z`: the only shape the spec gives for resource timestamps. */
const UTC_Z = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

type Kind = 'string' | 'integer' | 'number' | 'boolean' | 'date-time' | 'object';

/** A field of a spec table: its JSON type, and whether it must be present (and non-null). */
interface Field {
  name: string;
  kind: Kind;
  required?: boolean;
}

const f = (name: string, kind: Kind, required = false): Field => ({ name, kind, required });

/** The Person table. Which fields may be absent or null is not shown, so only identity, counts, dates and the hot-lead flag are required. */
const PERSON: Field[] = [
  f('id', 'string', true),
  f('email', 'string'),
  f('businessEmail', 'string'),
  f('personalEmail', 'string'),
  f('firstName', 'string'),
  f('lastName', 'string'),
  f('title', 'string'),
  f('company', 'string'),
  f('location', 'string'),
  f('region', 'string'),
  f('linkedinUrl', 'string'),
  f('phone', 'string'),
  f('profileImageUrl', 'string'),
  f('visitCount', 'integer', true),
  f('firstSeen', 'date-time', true),
  f('lastSeen', 'date-time', true),
  f('isHotLead', 'boolean', true),
  f('classifiedSeniority', 'string'),
  f('classifiedJobFunction', 'string'),
  f('trafficType', 'string'),
  f('adPlatform', 'string'),
  f('companyData', 'object'),
  f('domain', 'string'),
  f('clientRef', 'string'),
];

/** The fields the Person table gives companyData. */
const COMPANY_DATA: Field[] = [
  f('companyId', 'string', true),
  f('name', 'string'),
  f('domain', 'string'),
  f('standardizedIndustry', 'string'),
  f('location', 'string'),
  f('employeeCount', 'integer'),
];

/** The Company table; identity, name, counts, dates and the hot flag are required, the descriptive fields may be unknown. */
const COMPANY: Field[] = [
  f('id', 'string', true),
  f('name', 'string', true),
  f('domain', 'string'),
  f('standardizedIndustry', 'string'),
  f('location', 'string'),
  f('region', 'string'),
  f('linkedinUrl', 'string'),
  f('employeeCount', 'integer'),
  f('visitCount', 'integer', true),
  f('firstSeen', 'date-time', true),
  f('lastSeen', 'date-time', true),
  f('isHotCompany', 'boolean', true),
  f('trafficType', 'string'),
  f('adPlatform', 'string'),
];

/** The Event table: five fields always present, the rest depending on the event type. */
const EVENT: Field[] = [
  f('eventId', 'string', true),
  f('sessionId', 'string', true),
  f('eventType', 'string', true),
  f('timestamp', 'date-time', true),
  f('url', 'string', true),
  f('pageTitle', 'string'),
  f('clickElement', 'string'),
  f('clickHref', 'string'),
  f('scrollPercentage', 'integer'),
  f('domain', 'string'),
  f('clientRef', 'string'),
];

const PERSON_SUMMARY: Field[] = [f('id', 'string', true), f('firstName', 'string'), f('lastName', 'string'), f('email', 'string'), f('company', 'string')];

const STATISTICS: Field[] = [
  f('totalPeople', 'integer', true),
  f('totalCompanies', 'integer', true),
  f('recentEvents', 'integer', true),
  f('periodDays', 'integer', true),
  f('dailyAverage', 'number', true),
  f('generatedAt', 'date-time', true),
];

function hasKind(value: unknown, kind: Kind): boolean {
  switch (kind) {
    case 'string':
    case 'date-time':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
  }
}

/** What is wrong with a record against a table: a required field missing or null, or any present field of the wrong type. */
function fieldProblems(record: unknown, fields: Field[], what: string): string[] {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return [`${what} is ${JSON.stringify(record)}, not an object`];
  const row = record as Record<string, unknown>;
  const problems: string[] = [];
  for (const field of fields) {
    const value = row[field.name];
    if (value === undefined || value === null) {
      if (field.required) problems.push(`${what} has ${field.name} ${value === null ? 'null' : 'absent'}`);
    } else if (!hasKind(value, field.kind)) {
      problems.push(`${what} has ${field.name} ${JSON.stringify(value)}, not ${field.kind === 'date-time' ? 'a date-time string' : `a${field.kind === 'integer' ? 'n' : ''} ${field.kind}`}`);
    }
  }
  return problems;
}

/** Fails with the first few problems and how many there were. */
function report(t: CheckContext, problems: string[]): void {
  if (problems.length === 0) return;
  t.fail(`${problems.slice(0, 5).join('; ')}${problems.length > 5 ? `; and ${problems.length - 5} more` : ''}`);
}

/** Whether text is a real instant in the `Z` shape (2026-02-30 and 24:00 are not). */
function isUtcZ(text: unknown): boolean {
  if (typeof text !== 'string' || !UTC_Z.test(text)) return false;
  const ms = Date.parse(text);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 19) === text.slice(0, 19);
}

/** Plain JSON with keys sorted, so two records compare regardless of key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

const people = (t: CheckContext) => t.discover.walk('/v1/people', t.accountKey);
const companies = (t: CheckContext) => t.discover.walk('/v1/companies', t.accountKey);

async function somePeople(t: CheckContext): Promise<any[]> {
  const { rows } = await people(t);
  if (rows.length === 0) t.skip('the account has no people');
  return rows;
}

async function someCompanies(t: CheckContext): Promise<any[]> {
  const { rows } = await companies(t);
  if (rows.length === 0) t.skip('the account has no companies');
  return rows;
}

/** A few rows spread over a list: first, middle, last, and any picked out by `extra`. */
function sample<T>(rows: T[], ...extra: ((row: T) => boolean)[]): T[] {
  const picked = new Set<T>([rows[0]!, rows[Math.floor(rows.length / 2)]!, rows[rows.length - 1]!]);
  for (const test of extra) {
    const row = rows.find(test);
    if (row !== undefined) picked.add(row);
  }
  return [...picked];
}

/**
 * An identifier shaped like a real one that names nothing: the real one with its last
 * characters changed within their character class, so an implementation that validates the
 * id's format still has to look it up.
 */
function unknownIdLike(real: string, taken: Set<string>): string {
  const swap = (c: string, k: number): string => {
    if (/[0-9]/.test(c)) return String((Number(c) + 1 + k) % 10);
    if (/[a-z]/.test(c)) return String.fromCharCode(97 + ((c.charCodeAt(0) - 97 + 1 + k) % 26));
    if (/[A-Z]/.test(c)) return String.fromCharCode(65 + ((c.charCodeAt(0) - 65 + 1 + k) % 26));
    return c;
  };
  for (let k = 0; k < 20; k++) {
    const tail = real.slice(-4).split('').map((c) => swap(c, k)).join('');
    const candidate = real.slice(0, -4) + tail;
    if (candidate !== real && !taken.has(candidate)) return candidate;
  }
  return `${real}x`;
}

/** Events from the first page of a few journeys (the busiest, the newest and the oldest visitor), read once per run. */
interface EventSample {
  /** Each journey read: the person, the path and the reply. */
  journeys: { person: any; path: string; reply: { status: number; body: any; text: string } }[];
  events: any[];
}
const eventSamples = new WeakMap<CheckContext, Promise<EventSample>>();

function eventSample(t: CheckContext): Promise<EventSample> {
  let sample = eventSamples.get(t);
  if (!sample) {
    sample = (async () => {
      const rows = await somePeople(t);
      const busiest = [...rows].sort((a, b) => (Number(b?.visitCount) || 0) - (Number(a?.visitCount) || 0)).slice(0, 3);
      const chosen = [...new Set([...busiest, rows[0], rows[rows.length - 1]])].filter((p) => typeof p?.id === 'string');
      const journeys: EventSample['journeys'] = [];
      const events: any[] = [];
      for (const person of chosen) {
        const path = `/v1/people/${encodeURIComponent(person.id)}/events?limit=100`;
        const reply = await t.get(path);
        if (reply.status !== 200 || !Array.isArray(reply.body?.data)) t.fail(`GET ${path} answered ${reply.status}: ${reply.text.slice(0, 200)}`);
        journeys.push({ person, path, reply });
        events.push(...reply.body.data);
      }
      return { journeys, events };
    })();
    eventSamples.set(t, sample);
    sample.catch(() => eventSamples.delete(t));
  }
  return sample;
}

async function someEvents(t: CheckContext): Promise<any[]> {
  const { events } = await eventSample(t);
  if (events.length === 0) t.skip('the sampled journeys hold no events');
  return events;
}

/** Click events are the `click` type and its relatives (e.g. a rage click); the type set is open. */
const isClick = (event: any) => typeof event?.eventType === 'string' && /click/i.test(event.eventType);
const isScroll = (event: any) => typeof event?.eventType === 'string' && /scroll/i.test(event.eventType);
const carries = (event: any, field: string) => event?.[field] !== undefined && event?.[field] !== null;

async function getStats(t: CheckContext): Promise<any> {
  const reply = await t.get('/v1/stats');
  t.status(reply, 200, 'GET /v1/stats');
  t.assert(reply.body?.data && typeof reply.body.data === 'object', `GET /v1/stats has no data object: ${reply.text.slice(0, 200)}`);
  return reply.body.data;
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
      if (withData.length === 0) t.skip('no person walked carries companyData');
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
      for (const row of picked) {
        const path = `/v1/people/${encodeURIComponent(row.id)}`;
        const reply = await t.get(path);
        t.status(reply, 200, `GET ${path}`);
        t.assert(reply.body?.data && typeof reply.body.data === 'object', `GET ${path} has no data object: ${reply.text.slice(0, 200)}`);
        t.assert(canonical(reply.body.data) === canonical(row), `GET ${path} differs from the list row:\n  one:  ${canonical(reply.body.data).slice(0, 600)}\n  list: ${canonical(row).slice(0, 600)}`);
      }
    },
  },
  {
    id: 'resources.person-unknown-404',
    section: 'GET /v1/people/{id}',
    title: 'GET /v1/people/{id} for a person that does not exist answers 404 not_found',
    async run(t: CheckContext) {
      const { rows } = await people(t);
      const id = rows.length > 0 ? unknownIdLike(String(rows[0].id), new Set(rows.map((r) => r.id))) : 'per_harness_no_such_person';
      t.error(await t.get(`/v1/people/${encodeURIComponent(id)}`), 404, 'not_found', `GET /v1/people/${id}`);
    },
  },
  {
    id: 'resources.events-unknown-person-404',
    section: 'GET /v1/people/{id}/events',
    title: 'GET /v1/people/{id}/events for a person that does not exist answers 404 not_found, not an empty journey',
    async run(t: CheckContext) {
      const { rows } = await people(t);
      const id = rows.length > 0 ? unknownIdLike(String(rows[0].id), new Set(rows.map((r) => r.id))) : 'per_harness_no_such_person';
      t.error(await t.get(`/v1/people/${encodeURIComponent(id)}/events`), 404, 'not_found', `GET /v1/people/${id}/events`);
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
      for (const row of sample(rows, (row) => row.isHotCompany === true)) {
        const path = `/v1/companies/${encodeURIComponent(row.id)}`;
        const reply = await t.get(path);
        t.status(reply, 200, `GET ${path}`);
        t.assert(reply.body?.data && typeof reply.body.data === 'object', `GET ${path} has no data object: ${reply.text.slice(0, 200)}`);
        t.assert(canonical(reply.body.data) === canonical(row), `GET ${path} differs from the list row:\n  one:  ${canonical(reply.body.data).slice(0, 600)}\n  list: ${canonical(row).slice(0, 600)}`);
      }
    },
  },
  {
    id: 'resources.company-unknown-404',
    section: 'GET /v1/companies/{id}',
    title: 'GET /v1/companies/{id} for a company that does not exist answers 404 not_found',
    async run(t: CheckContext) {
      const { rows } = await companies(t);
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
      if (clicks.length === 0) t.skip(`the sampled journeys hold no click event (only ${[...new Set(events.map((e) => e.eventType))].join(', ')}); the non-click part held`);
    },
  },
  {
    id: 'resources.event-scroll-percentage',
    section: FIELDS,
    title: 'scrollPercentage belongs to scroll events and is an integer from 0 to 100',
    async run(t: CheckContext) {
      const events = await someEvents(t);
      const withScroll = events.filter((e) => carries(e, 'scrollPercentage'));
      if (withScroll.length === 0) t.skip('no sampled event carries scrollPercentage');
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
      if (journeys.length === 0) t.skip('no person to read a journey of');
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
      const [p, c] = [await people(t), await companies(t)];
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
      const [p, c] = [await people(t), await companies(t)];
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
