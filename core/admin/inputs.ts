import { forbiddenCharacter, FORBIDDEN_RULE } from '../http/client-text.ts';
import { QUOTED_INPUT_CHARS } from '../http/errors.ts';

/** Where a person stands in the partner's CRM. */
export type CrmStatus = 'not_in_crm' | 'in_crm' | 'customer';
export const CRM_STATUSES: readonly CrmStatus[] = ['not_in_crm', 'in_crm', 'customer'];

/** A time given to the admin surface: a Date, ISO 8601 text, or epoch milliseconds. */
export type TimeInput = Date | string | number;

/** A company to load. `id` is the public identifier, unique within the account. */
export interface CompanyInput {
  id: string;
  name: string;
  domain?: string | null;
  standardizedIndustry?: string | null;
  location?: string | null;
  region?: string | null;
  linkedinUrl?: string | null;
  employeeCount?: number | null;
  isHotCompany?: boolean;
  trafficType?: string | null;
  adPlatform?: string | null;
}

/** A person's visits to one client site. */
export interface VisitInput {
  domain: string;
  visitCount: number;
  firstSeen: TimeInput;
  lastSeen: TimeInput;
}

/**
 * A person to load. Their account-wide visitCount, firstSeen and lastSeen are derived from
 * `visits` (sum, earliest, latest), and they are attributed to the site of the latest visit.
 */
export interface PersonInput {
  id: string;
  email?: string | null;
  businessEmail?: string | null;
  personalEmail?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  title?: string | null;
  company?: string | null;
  location?: string | null;
  region?: string | null;
  linkedinUrl?: string | null;
  phone?: string | null;
  profileImageUrl?: string | null;
  isHotLead?: boolean;
  classifiedSeniority?: string | null;
  classifiedJobFunction?: string | null;
  trafficType?: string | null;
  adPlatform?: string | null;
  /** The id of a company loaded into the same account. */
  companyId?: string | null;
  /** The marketing campaign that brought them (exports filter on it; not part of the Person resource). */
  campaign?: string | null;
  /** Where they stand in the partner's CRM (exports filter on it). Default `not_in_crm`. */
  crmStatus?: CrmStatus;
  visits: VisitInput[];
}

/**
 * An event to load. Fields beyond the required ones are kept as given and returned on
 * this event only, so new event types need no change here.
 */
export interface EventInput {
  eventId: string;
  personId: string;
  sessionId: string;
  eventType: string;
  timestamp: TimeInput;
  url: string;
  /** The client site the event happened on; must be registered in the account. */
  domain: string;
  [typeSpecific: string]: unknown;
}

/** A mistake in what was given to the admin surface. */
export class AdminError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdminError';
  }
}

/** Refuses a required field that is absent, naming it as missing rather than judging its value. */
export function present<T>(value: T | null | undefined, field: string): T {
  if (value === undefined || value === null) throw new AdminError(`${field} is missing`);
  return value;
}

/** Epoch seconds from a time input, or an AdminError naming the field. */
export function toSeconds(value: TimeInput, field: string): number {
  present(value, field);
  const ms = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(ms)) throw new AdminError(`${field} is not a valid time: ${String(value)}`);
  return Math.floor(ms / 1000);
}

/** A refused value as a message shows it: its JSON, cut to its first 100 characters (a 1 MB object must not come back whole). */
export function shownValue(value: unknown): string {
  const json = JSON.stringify(value) ?? typeof value;
  return json.length <= QUOTED_INPUT_CHARS ? json : `${json.slice(0, QUOTED_INPUT_CHARS)}…`;
}

/**
 * Checks a required non-empty string without control characters or unpaired surrogates. Ids
 * pass through here, so no stored id holds a character the API refuses in client text, and a
 * path id carrying one can only be a 404.
 */
export function requireText(value: unknown, field: string, max = 512): string {
  present(value, field);
  if (typeof value !== 'string' || value.length === 0 || value.length > max) {
    throw new AdminError(`${field} must be a non-empty string of at most ${max} characters`);
  }
  const found = forbiddenCharacter(value);
  if (found) throw new AdminError(`${field} must not contain ${FORBIDDEN_RULE}; found ${found}`);
  return value;
}
