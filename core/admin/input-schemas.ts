/**
 * What loading takes: companies, people with their visits per site, and events, each defined once
 * as a TypeBox schema. The loader validates with these schemas (`input-check.ts`), the
 * TypeScript input types are derived from them, and the OpenAPI document's admin load bodies
 * are these schemas, so the three cannot drift. What needs the database (a registered site, a
 * known company or person) stays in the loader.
 */
import { Type, type Static, type TSchema } from 'typebox';
import { FORBIDDEN_CLASS } from '../http/client-text.ts';

/** Where a person stands in the partner's CRM. */
export const CRM_STATUSES = ['not_in_crm', 'in_crm', 'customer'] as const;
export type CrmStatus = (typeof CRM_STATUSES)[number];

/** The pattern of text without control characters or unpaired surrogates (read with the `u` flag, as JSON Schema reads it). */
export const TEXT_PATTERN = `^[^${FORBIDDEN_CLASS}]*$`;

/** Required text as ids and names take it: not empty, at most `max` characters, no control character. */
const text = (max: number, description?: string) => Type.String({ minLength: 1, maxLength: max, pattern: TEXT_PATTERN, ...(description ? { description } : {}) });
/** An optional text field: absent, null or a string. */
const optionalText = (description?: string) => Type.Optional(Type.Union([Type.String(), Type.Null()], description ? { description } : {}));
const optionalFlag = (description?: string) => Type.Optional(Type.Union([Type.Boolean(), Type.Null()], description ? { description } : {}));
/** A count: a whole number JavaScript holds exactly. */
const count = (minimum: number, description: string) => Type.Integer({ minimum, maximum: Number.MAX_SAFE_INTEGER, description });

/** A time in a JSON body: ISO 8601 text or epoch milliseconds. */
export const JSON_TIME = Type.Union([Type.String(), Type.Number()], { title: 'TimeInput', description: 'ISO 8601 date-time text with its zone (`Z` or an offset), or epoch milliseconds.' });
/** In-process a time may also be a Date, which no JSON body can hold; whether text parses as a time is the loader's check. */
const ANY_TIME = Type.Unsafe<Date | string | number>(Type.Refine(Type.Unknown(), (v) => typeof v === 'string' || typeof v === 'number' || v instanceof Date));

/** The input shapes, with `time` as the schema of their times. */
function shapes<Time extends TSchema>(time: Time) {
  const company = Type.Object(
    {
      id: text(128, "The company's public id, unique in the account."),
      name: text(512),
      domain: optionalText("The company's own web domain."),
      standardizedIndustry: optionalText('`Software`, `Healthcare`… (free text).'),
      location: optionalText(),
      region: optionalText(),
      linkedinUrl: optionalText(),
      employeeCount: Type.Optional(Type.Union([count(0, 'Employees.'), Type.Null()])),
      isHotCompany: optionalFlag(),
      trafficType: optionalText(),
      adPlatform: optionalText(),
    },
    { title: 'CompanyInput', description: 'A company to load; its visit figures come from its people. Absent or null text reads `""` on the Company, an absent employee count `0`.' },
  );
  const visit = Type.Object(
    {
      domain: Type.String({ minLength: 1, description: 'A client site registered in the account.' }),
      visitCount: count(1, 'Visits to that site.'),
      firstSeen: time,
      lastSeen: time,
    },
    { title: 'VisitInput', description: "A person's visits to one client site." },
  );
  const person = Type.Object(
    {
      id: text(128, "The person's public id, unique in the account."),
      email: optionalText(),
      businessEmail: optionalText(),
      personalEmail: optionalText(),
      firstName: optionalText(),
      lastName: optionalText(),
      title: optionalText(),
      company: optionalText('The company name as shown on the Person.'),
      location: optionalText(),
      region: optionalText(),
      linkedinUrl: optionalText(),
      phone: optionalText(),
      profileImageUrl: optionalText(),
      isHotLead: optionalFlag('Default `false`.'),
      classifiedSeniority: optionalText(),
      classifiedJobFunction: optionalText(),
      trafficType: optionalText(),
      adPlatform: optionalText(),
      companyId: optionalText("The `id` of a company loaded into the same account: it becomes the Person's `companyData`."),
      campaign: optionalText('The campaign that brought them: exports filter on it; the Person does not show it.'),
      crmStatus: Type.Optional(Type.Union([Type.Enum(CRM_STATUSES), Type.Null()], { description: "Where they stand in the partner's CRM (default `not_in_crm`): exports filter on it." })),
      visits: Type.Array(visit, { minItems: 1, description: 'One entry per client site the person was seen on.' }),
    },
    {
      title: 'PersonInput',
      description: "A person to load. The Person's `visitCount`, `firstSeen` and `lastSeen` are the sum, earliest and latest over `visits`; it is attributed to the site of the latest visit.",
    },
  );
  const event = Type.Object(
    {
      eventId: text(128, 'Unique in the account; an id already loaded is skipped.'),
      personId: text(128, 'A person loaded into the account.'),
      sessionId: text(128),
      eventType: text(64, 'An open set: `page_view`, `click`, `form_submission`…'),
      timestamp: time,
      url: text(4096),
      domain: Type.String({ minLength: 1, description: 'The client site it happened on, one the person visited.' }),
      scrollPercentage: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 100 }), Type.Null()])),
    },
    { title: 'EventInput', additionalProperties: true, description: 'An event to load. Any other field is kept as given and returned with this event only (`pageTitle`, `clickElement`, `formId`…).' },
  );
  return { companies: company, people: person, visit, events: event };
}

/** The schemas the loader checks items with. */
export const INPUT_SCHEMAS = shapes(ANY_TIME);
/** The same shapes as a JSON body holds them: the OpenAPI document's, and the ones messages and docs describe. */
export const JSON_INPUT_SCHEMAS = shapes(JSON_TIME);

/** A time given to the admin surface: a Date, ISO 8601 text, or epoch milliseconds. */
export type TimeInput = Date | string | number;
/** A company to load. `id` is the public identifier, unique within the account. */
export type CompanyInput = Static<typeof INPUT_SCHEMAS.companies>;
/** A person's visits to one client site. */
export type VisitInput = Static<typeof INPUT_SCHEMAS.visit>;
/**
 * A person to load. Their account-wide visitCount, firstSeen and lastSeen are derived from
 * `visits` (sum, earliest, latest), and they are attributed to the site of the latest visit.
 */
export type PersonInput = Static<typeof INPUT_SCHEMAS.people>;
/**
 * An event to load. Fields beyond the required ones are kept as given and returned on
 * this event only, so new event types need no change here.
 */
export type EventInput = Static<typeof INPUT_SCHEMAS.events> & { [typeSpecific: string]: unknown };
