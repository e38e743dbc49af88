/** The resource shapes the checks hold records to, and how a record is compared with them. */
import type { CheckContext } from '../context.ts';
import type { Reply } from '../http.ts';
import { accountCompanies, accountPeople, eventsPath } from './list-support.ts';
export const FIELDS = 'Resources and their fields';

/** ISO 8601 in UTC with `Z`: the only shape the spec gives for resource timestamps. */
const UTC_Z = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

export type Kind = 'string' | 'integer' | 'number' | 'boolean' | 'date-time' | 'object';

/** A field of a spec table: its JSON type, and whether it must be present (and non-null). */
export interface Field {
  name: string;
  kind: Kind;
  required?: boolean;
}

const f = (name: string, kind: Kind, required = false): Field => ({ name, kind, required });

/** The Person table. Which fields may be absent or null is not shown, so only identity, counts, dates and the hot-lead flag are required. */
export const PERSON: Field[] = [
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
export const COMPANY_DATA: Field[] = [
  f('companyId', 'string', true),
  f('name', 'string'),
  f('domain', 'string'),
  f('standardizedIndustry', 'string'),
  f('location', 'string'),
  f('employeeCount', 'integer'),
];

/** The Company table. Unlike Person's, its fields carry no word that they may be absent or null: every one is required, typed. */
export const COMPANY: Field[] = [
  f('id', 'string', true),
  f('name', 'string', true),
  f('domain', 'string', true),
  f('standardizedIndustry', 'string', true),
  f('location', 'string', true),
  f('region', 'string', true),
  f('linkedinUrl', 'string', true),
  f('employeeCount', 'integer', true),
  f('visitCount', 'integer', true),
  f('firstSeen', 'date-time', true),
  f('lastSeen', 'date-time', true),
  f('isHotCompany', 'boolean', true),
  f('trafficType', 'string', true),
  f('adPlatform', 'string', true),
];

/** The Event table: five fields always present, the rest depending on the event type. */
export const EVENT: Field[] = [
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

export const PERSON_SUMMARY: Field[] = [f('id', 'string', true), f('firstName', 'string'), f('lastName', 'string'), f('email', 'string'), f('company', 'string')];

export const STATISTICS: Field[] = [
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
export function fieldProblems(record: unknown, fields: Field[], what: string): string[] {
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
export function report(t: CheckContext, problems: string[]): void {
  if (problems.length === 0) return;
  t.fail(`${problems.slice(0, 5).join('; ')}${problems.length > 5 ? `; and ${problems.length - 5} more` : ''}`);
}

/** Whether text is a real instant in the `Z` shape (2026-02-30 and 24:00 are not). */
export function isUtcZ(text: unknown): boolean {
  if (typeof text !== 'string' || !UTC_Z.test(text)) return false;
  const ms = Date.parse(text);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 19) === text.slice(0, 19);
}

/** Plain JSON with keys sorted, so two records compare regardless of key order. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

export async function somePeople(t: CheckContext): Promise<any[]> {
  const { rows } = await accountPeople(t);
  if (rows.length === 0) t.notApplicable('the account has no people');
  return rows;
}

export async function someCompanies(t: CheckContext): Promise<any[]> {
  const { rows } = await accountCompanies(t);
  if (rows.length === 0) t.notApplicable('the account has no companies');
  return rows;
}

/** A few rows spread over a list: first, middle, last, and any picked out by `extra`. */
export function sample<T>(rows: T[], ...extra: ((row: T) => boolean)[]): T[] {
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
export function unknownIdLike(real: string, taken: Set<string>): string {
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
export interface EventSample {
  /** Each journey read: the person, the path and the reply. */
  journeys: { person: any; path: string; reply: Reply }[];
  events: any[];
}

export function eventSample(t: CheckContext): Promise<EventSample> {
  return t.discover.once('event-sample', async () => {
    const rows = await somePeople(t);
    const busiest = [...rows].sort((a, b) => (Number(b?.visitCount) || 0) - (Number(a?.visitCount) || 0)).slice(0, 3);
    const chosen = [...new Set([...busiest, rows[0], rows[rows.length - 1]])].filter((p) => typeof p?.id === 'string');
    const journeys: EventSample['journeys'] = [];
    const events: any[] = [];
    for (const person of chosen) {
      // The first page a walk of the journey (the paging checks' longest one) may already have read.
      const reply = await t.discover.firstPage(eventsPath(person.id), t.accountKey);
      journeys.push({ person, path: `${eventsPath(person.id)}?limit=100`, reply });
      events.push(...reply.body.data);
    }
    return { journeys, events };
  });
}

export async function someEvents(t: CheckContext): Promise<any[]> {
  const { events } = await eventSample(t);
  if (events.length === 0) t.notApplicable('the sampled journeys hold no events');
  return events;
}

/** Click events are the `click` type and its relatives (e.g. a rage click); the type set is open. */
export const isClick = (event: any) => typeof event?.eventType === 'string' && /click/i.test(event.eventType);
export const isScroll = (event: any) => typeof event?.eventType === 'string' && /scroll/i.test(event.eventType);
export const carries = (event: any, field: string) => event?.[field] !== undefined && event?.[field] !== null;

/** The statistics of the account, read once per run (several checks compare with them). */
export function getStats(t: CheckContext): Promise<any> {
  return t.discover.once('stats', async () => {
    const reply = await t.get('/v1/stats');
    t.status(reply, 200, 'GET /v1/stats');
    t.assert(reply.body?.data && typeof reply.body.data === 'object', `GET /v1/stats has no data object: ${reply.text.slice(0, 200)}`);
    return reply.body.data;
  });
}
