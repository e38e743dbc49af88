/**
 * The resource shapes of the Visitor Intelligence API, as the spec's tables define them.
 * Handlers, the CSV writer and the conformance harness all use these one definitions.
 */

/** An ISO 8601 UTC date-time with a `Z` suffix, e.g. `2026-11-21T08:18:00Z`. */
export type DateTime = string;

/** Company data embedded in a person. Fields are never null: no value is `''`, or `0` employees. */
export interface CompanyData {
  companyId: string;
  name: string;
  domain: string;
  standardizedIndustry: string;
  location: string;
  employeeCount: number;
}

/** An identified visitor. Every field is always present; unknown values are `null`. */
export interface Person {
  id: string;
  email: string | null;
  businessEmail: string | null;
  personalEmail: string | null;
  firstName: string | null;
  lastName: string | null;
  title: string | null;
  company: string | null;
  location: string | null;
  region: string | null;
  linkedinUrl: string | null;
  phone: string | null;
  profileImageUrl: string | null;
  visitCount: number;
  firstSeen: DateTime;
  lastSeen: DateTime;
  isHotLead: boolean;
  classifiedSeniority: string | null;
  classifiedJobFunction: string | null;
  trafficType: string | null;
  adPlatform: string | null;
  companyData: CompanyData | null;
  domain: string;
  clientRef: string | null;
}

/**
 * A company identified from its visitors. Every field has the spec's type and is never null:
 * text with no value is `''`, an unknown employee count is `0`.
 */
export interface Company {
  id: string;
  name: string;
  domain: string;
  standardizedIndustry: string;
  location: string;
  region: string;
  linkedinUrl: string;
  employeeCount: number;
  visitCount: number;
  firstSeen: DateTime;
  lastSeen: DateTime;
  isHotCompany: boolean;
  trafficType: string;
  adPlatform: string;
}

/**
 * One step of a person's journey. The first five fields are always present; the rest appear
 * only on the event types they apply to, and unknown types may carry fields of their own.
 */
export interface VisitorEvent {
  eventId: string;
  sessionId: string;
  eventType: string;
  timestamp: DateTime;
  url: string;
  pageTitle?: string;
  clickElement?: string;
  clickHref?: string;
  scrollPercentage?: number;
  domain: string;
  clientRef?: string;
  [extra: string]: unknown;
}

/** The person summary carried by the events response. */
export interface PersonSummary {
  id: string;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  company: string | null;
}

/** Aggregate dashboard statistics. */
export interface Statistics {
  totalPeople: number;
  totalCompanies: number;
  recentEvents: number;
  periodDays: number;
  dailyAverage: number;
  generatedAt: DateTime;
}

/** The pagination object of every list response; `nextCursor` is absent on the last page. */
export interface Pagination {
  limit: number;
  count: number;
  nextCursor?: string;
}

/** A page of a list endpoint. */
export interface ListResponse<T> {
  data: T[];
  pagination: Pagination;
}

/** The events endpoint's page, which also names whose journey it is. */
export interface EventsResponse extends ListResponse<VisitorEvent> {
  person: PersonSummary;
}

/** The body of `GET /v1/health`. */
export interface Health {
  status: 'ok';
  version: string;
  time: DateTime;
}

/** The kinds of webhook event: `person.identified` is on for every endpoint, `person.activity` is opt-in. */
export type WebhookEventKind = 'person.identified' | 'person.activity';
export const WEBHOOK_EVENT_KINDS: readonly WebhookEventKind[] = ['person.identified', 'person.activity'];

/** The envelope of every webhook delivery. */
export interface WebhookPayload<K extends WebhookEventKind = WebhookEventKind, D = unknown> {
  /** The delivery's id: the same as the `webhook-id` header, and the same on every retry. */
  webhookId: string;
  event: K;
  /** When this attempt was sent. */
  timestamp: DateTime;
  /** The client site the event happened on. */
  domain: string;
  /** That site's label; `null` for a site registered without one. */
  clientRef: string | null;
  data: D;
}

/** `data` of `person.activity`: one person's new events on one site, oldest first. */
export interface PersonActivityData {
  person: { id: string; email: string | null };
  /** Each event as the events endpoint returns it, oldest first. */
  events: VisitorEvent[];
  /** How many events this delivery carries. */
  eventCount: number;
  /** True when the person had more new events than the per-delivery cap: page the events endpoint for the rest. */
  truncated: boolean;
}

/** `data` of `person.identified`: the Person as the account-wide read API returned it when they were identified. */
export interface PersonIdentifiedData {
  person: Person;
}

/** A `person.activity` delivery's body. */
export type PersonActivityPayload = WebhookPayload<'person.activity', PersonActivityData>;
/** A `person.identified` delivery's body. */
export type PersonIdentifiedPayload = WebhookPayload<'person.identified', PersonIdentifiedData>;
/** Any delivery's body. */
export type AnyWebhookPayload = PersonActivityPayload | PersonIdentifiedPayload;

/** Every error code the API answers with. */
export type ErrorCode =
  | 'bad_request'
  | 'validation_error'
  | 'invalid_cursor'
  | 'unauthorized'
  | 'forbidden'
  | 'scope_not_supported'
  | 'not_found'
  | 'method_not_allowed'
  | 'rate_limit_exceeded'
  | 'too_many_exports'
  | 'internal_error';

/** The error envelope. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; status: number };
}

/** The interface version this implementation serves. */
export const API_VERSION = '1.0.0';
