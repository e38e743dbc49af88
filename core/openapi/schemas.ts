/**
 * The resource schemas of the OpenAPI document, defined once as data. Each is checked against
 * its interface in `resources/types.ts` at compile time (the `Agree` lines at the end), so a
 * field added, removed, renamed, made optional or nullable in one and not the other fails `tsc`.
 * Property order is the order the API writes fields in.
 */
import type { Company, CompanyData, ErrorBody, ErrorCode, Health, Pagination, Person, PersonSummary, Statistics, VisitorEvent } from '../resources/types.ts';
import type { Agree, FromSchema, Same } from './schema-types.ts';

const text = { type: 'string' } as const;
const nullableText = { type: ['string', 'null'] } as const;
const count = { type: 'integer', minimum: 0 } as const;

/** A UTC instant in whole seconds, as every resource writes it. */
export const instant = {
  type: 'string',
  format: 'date-time',
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$',
  description: 'UTC, whole seconds: `YYYY-MM-DDThh:mm:ssZ`.',
} as const;

export const companyDataSchema = {
  type: 'object',
  description: 'The company a person belongs to, as embedded in the person.',
  properties: {
    companyId: text,
    name: text,
    domain: text,
    standardizedIndustry: text,
    location: text,
    employeeCount: { ...count, description: '`0` when not known.' },
  },
  required: ['companyId', 'name', 'domain', 'standardizedIndustry', 'location', 'employeeCount'],
  additionalProperties: false,
} as const;

export const personSchema = {
  type: 'object',
  description:
    'An identified visitor. Every field is always present; a value that is not known is `null`. ' +
    'A person seen on several client sites is attributed (`domain`, `clientRef`) to the site of their latest visit, ' +
    'or, when `domain`/`client_ref` narrow the list, to the latest of the selected sites; `visitCount`, `firstSeen` ' +
    'and `lastSeen` are the sums and extremes over all sites (for a domain-scoped key, over the sites of its scope, and attributed to the latest of them).',
  properties: {
    id: { ...text, description: 'Person identifier.' },
    email: nullableText,
    businessEmail: nullableText,
    personalEmail: nullableText,
    firstName: nullableText,
    lastName: nullableText,
    title: { ...nullableText, description: 'Job title.' },
    company: { ...nullableText, description: 'Company name.' },
    location: nullableText,
    region: { ...nullableText, description: 'Free text; the demo data uses North America, EMEA, APAC and LATAM.' },
    linkedinUrl: nullableText,
    phone: nullableText,
    profileImageUrl: nullableText,
    visitCount: count,
    firstSeen: instant,
    lastSeen: { ...instant, description: 'Lists are ordered by this, newest first (then by `id`, descending).' },
    isHotLead: { type: 'boolean', description: 'Current hot-lead (ICP) qualification.' },
    classifiedSeniority: nullableText,
    classifiedJobFunction: nullableText,
    trafficType: nullableText,
    adPlatform: nullableText,
    companyData: { anyOf: [companyDataSchema, { type: 'null' }], description: '`null` when no company was identified.' },
    domain: { ...text, description: 'Client attribution: the tracked domain on which the person was seen.' },
    clientRef: { ...nullableText, description: "Client attribution: the partner's label for that domain; `null` for a site registered without one." },
  },
  required: [
    'id', 'email', 'businessEmail', 'personalEmail', 'firstName', 'lastName', 'title', 'company', 'location', 'region',
    'linkedinUrl', 'phone', 'profileImageUrl', 'visitCount', 'firstSeen', 'lastSeen', 'isHotLead', 'classifiedSeniority',
    'classifiedJobFunction', 'trafficType', 'adPlatform', 'companyData', 'domain', 'clientRef',
  ],
  additionalProperties: false,
} as const;

export const companySchema = {
  type: 'object',
  description:
    'A company identified from its visitors. Every field is always present; unknown text is `""` and an unknown ' +
    '`employeeCount` is `0`. `visitCount`, `firstSeen` and `lastSeen` derive from its people\'s visits (in the caller\'s ' +
    'scope for a domain-scoped key; account-wide for an account key, even under `domain`/`client_ref`); a company with ' +
    'no identified people has `visitCount: 0` and the time it was loaded as its dates.',
  properties: {
    id: text,
    name: text,
    domain: text,
    standardizedIndustry: text,
    location: text,
    region: text,
    linkedinUrl: text,
    employeeCount: count,
    visitCount: count,
    firstSeen: instant,
    lastSeen: instant,
    isHotCompany: { type: 'boolean' },
    trafficType: text,
    adPlatform: text,
  },
  required: [
    'id', 'name', 'domain', 'standardizedIndustry', 'location', 'region', 'linkedinUrl', 'employeeCount', 'visitCount',
    'firstSeen', 'lastSeen', 'isHotCompany', 'trafficType', 'adPlatform',
  ],
  additionalProperties: false,
} as const;

export const eventSchema = {
  type: 'object',
  description:
    'One step of a person\'s journey. The first five fields are always present; the others only on the event types ' +
    'they apply to. `eventType` is an open set (known values include `page_view`, `click`, `form_submission` and ' +
    'scroll events), and type-specific fields of other types pass through untouched: ignore fields you do not know.',
  properties: {
    eventId: text,
    sessionId: text,
    eventType: text,
    timestamp: instant,
    url: text,
    pageTitle: text,
    clickElement: { ...text, description: 'Click events.' },
    clickHref: { ...text, description: 'Click events.' },
    scrollPercentage: { type: 'integer', description: 'Scroll events.' },
    domain: { ...text, description: 'Client attribution: the site the event was seen on.' },
    clientRef: { ...text, description: "Client attribution; left off for a site registered without a clientRef." },
  },
  required: ['eventId', 'sessionId', 'eventType', 'timestamp', 'url', 'domain'],
  additionalProperties: true,
} as const;

export const personSummarySchema = {
  type: 'object',
  description: 'Whose journey an events page is.',
  properties: { id: text, firstName: nullableText, lastName: nullableText, email: nullableText, company: nullableText },
  required: ['id', 'firstName', 'lastName', 'email', 'company'],
  additionalProperties: false,
} as const;

export const statisticsSchema = {
  type: 'object',
  description:
    '`totalPeople` and `totalCompanies` in the caller\'s view (the unfiltered account view counts every loaded company, ' +
    'those with no identified people included); `recentEvents` counts events in the last `days` × 24 hours; ' +
    '`dailyAverage` is `recentEvents / days` rounded to two decimals.',
  properties: {
    totalPeople: count,
    totalCompanies: count,
    recentEvents: count,
    periodDays: { type: 'integer', minimum: 1, maximum: 365 },
    dailyAverage: { type: 'number', minimum: 0 },
    generatedAt: instant,
  },
  required: ['totalPeople', 'totalCompanies', 'recentEvents', 'periodDays', 'dailyAverage', 'generatedAt'],
  additionalProperties: false,
} as const;

export const paginationSchema = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 100, description: 'The page size used.' },
    count: { ...count, description: 'Records in this page.' },
    nextCursor: {
      ...text,
      description: 'Pass as `cursor` for the next page; absent on the last page. Valid for one hour, with the same filters and a key of the same scope.',
    },
  },
  required: ['limit', 'count'],
  additionalProperties: false,
} as const;

export const healthSchema = {
  type: 'object',
  properties: { status: { const: 'ok' }, version: { ...text, description: 'The interface version, `1.0.0`.' }, time: instant },
  required: ['status', 'version', 'time'],
  additionalProperties: false,
} as const;

/** Every code of the error envelope, in the order of the spec's table. */
export const ERROR_CODES = [
  'bad_request', 'validation_error', 'invalid_cursor', 'unauthorized', 'forbidden', 'scope_not_supported', 'not_found',
  'method_not_allowed', 'rate_limit_exceeded', 'too_many_exports', 'internal_error',
] as const;

export const errorSchema = {
  type: 'object',
  description: 'The error envelope of every error response; `status` repeats the HTTP status.',
  properties: {
    error: {
      type: 'object',
      properties: {
        code: { type: 'string', enum: ERROR_CODES },
        message: { ...text, description: 'Names the offending parameter, filter or path where there is one.' },
        status: { type: 'integer', minimum: 400, maximum: 599 },
      },
      required: ['code', 'message', 'status'],
      additionalProperties: false,
    },
  },
  required: ['error'],
  additionalProperties: false,
} as const;

/** The resource schemas by the name they have in the document's components. */
export const RESOURCE_SCHEMAS = {
  Person: personSchema,
  CompanyData: companyDataSchema,
  Company: companySchema,
  Event: eventSchema,
  PersonSummary: personSummarySchema,
  Statistics: statisticsSchema,
  Pagination: paginationSchema,
  Health: healthSchema,
  Error: errorSchema,
} as const;

// Compile-time agreement with resources/types.ts: a mismatch fails tsc on the line naming the schema.
export type PersonAgrees = Agree<Same<FromSchema<typeof personSchema>, Person>>;
export type CompanyDataAgrees = Agree<Same<FromSchema<typeof companyDataSchema>, CompanyData>>;
export type CompanyAgrees = Agree<Same<FromSchema<typeof companySchema>, Company>>;
export type EventAgrees = Agree<Same<FromSchema<typeof eventSchema>, VisitorEvent>>;
export type PersonSummaryAgrees = Agree<Same<FromSchema<typeof personSummarySchema>, PersonSummary>>;
export type StatisticsAgrees = Agree<Same<FromSchema<typeof statisticsSchema>, Statistics>>;
export type PaginationAgrees = Agree<Same<FromSchema<typeof paginationSchema>, Pagination>>;
export type HealthAgrees = Agree<Same<FromSchema<typeof healthSchema>, Health>>;
export type ErrorCodesAgree = Agree<Same<(typeof ERROR_CODES)[number], ErrorCode>>;
export type ErrorAgrees = Agree<Same<FromSchema<typeof errorSchema>, ErrorBody>>;
