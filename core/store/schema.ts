import type { Generated, Kysely } from 'kysely';

/**
 * Table types for Kysely. Times are whole seconds since the Unix epoch (UTC);
 * booleans are 0/1 integers, as SQLite stores them.
 */
export interface Database {
  meta: MetaTable;
  accounts: AccountsTable;
  sites: SitesTable;
  api_keys: ApiKeysTable;
  companies: CompaniesTable;
  company_sites: CompanySitesTable;
  people: PeopleTable;
  person_sites: PersonSitesTable;
  events: EventsTable;
  person_pages: PersonPagesTable;
  export_jobs: ExportJobsTable;
  export_members: ExportMembersTable;
  /** SQLite only: a connection's temporary table, where collection stages a run (core/store/export-staging.ts). */
  export_staging: ExportMembersTable;
  export_chunks: ExportChunksTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  rate_limits: RateLimitsTable;
  event_counts: EventCountsTable;
  site_sets: SiteSetsTable;
  site_set_owners: SiteSetOwnersTable;
}

/** The Kysely instance the core runs on. */
export type Db = Kysely<Database>;

export interface MetaTable {
  key: string;
  value: string;
}

export interface AccountsTable {
  id: string;
  name: string;
  created_at: number;
}

/** A client site: a tracked domain of an account, with the partner's optional label. */
export interface SitesTable {
  pk: Generated<number>;
  account_id: string;
  domain: string;
  client_ref: string | null;
  created_at: number;
}

export interface ApiKeysTable {
  pk: Generated<number>;
  id: string;
  account_id: string;
  /** Set for a domain-scoped key: the one site it may read. */
  site_pk: number | null;
  /** The first hex characters of the key: finds the row without revealing the key. */
  lookup: string;
  /** Hex SHA-256 of the whole key; the key itself is never stored. */
  hash: string;
  label: string | null;
  created_at: number;
  revoked_at: number | null;
  replaced_by: string | null;
}

export interface CompaniesTable {
  pk: Generated<number>;
  account_id: string;
  id: string;
  name: string;
  domain: string | null;
  standardized_industry: string | null;
  location: string | null;
  region: string | null;
  linkedin_url: string | null;
  employee_count: number | null;
  is_hot_company: number;
  traffic_type: string | null;
  ad_platform: string | null;
  visit_count: number;
  first_seen: number;
  last_seen: number;
  loaded_at: number;
  /** The Company's JSON in stored pieces (company-row.ts), kept by stored-text.ts; null only inside the loading transaction. */
  json_head: string | null;
  json_figures: string | null;
  json_tail: string | null;
  /** The company's cells of its people's export lines (core/exports/columns.ts), formatted as the row is written. */
  csv_cells: string | null;
}

/** A company's activity on one site, derived from its people's visits there. */
export interface CompanySitesTable {
  company_pk: number;
  site_pk: number;
  company_id: string;
  visit_count: number;
  first_seen: number;
  last_seen: number;
  /** This site's figures as stored JSON members (company-row.ts). */
  json_figures: string | null;
}

export interface PeopleTable {
  pk: Generated<number>;
  account_id: string;
  id: string;
  email: string | null;
  business_email: string | null;
  personal_email: string | null;
  first_name: string | null;
  last_name: string | null;
  title: string | null;
  company: string | null;
  location: string | null;
  region: string | null;
  linkedin_url: string | null;
  phone: string | null;
  profile_image_url: string | null;
  visit_count: number;
  first_seen: number;
  last_seen: number;
  is_hot_lead: number;
  classified_seniority: string | null;
  classified_job_function: string | null;
  traffic_type: string | null;
  ad_platform: string | null;
  company_pk: number | null;
  /** The site of the person's most recent visit: their attribution in the account-wide view. */
  last_site_pk: number;
  /** The marketing campaign that brought them, if known. */
  campaign: string | null;
  /** `not_in_crm`, `in_crm` or `customer`. */
  crm_status: Generated<string>;
  /**
   * The Person's JSON in stored pieces (person-row.ts), rewritten by stored-text.ts whenever the
   * row, its company or its visits change. Null only between an insert and its rendering, inside
   * the loading transaction.
   */
  json_head: string | null;
  json_figures: string | null;
  json_tail: string | null;
  json_site: string | null;
  /**
   * The person's cells of an export file's line, formatted as the row is written (core/exports/columns.ts):
   * those before the company's, and those after the attribution's. Null only until a migration's
   * pending rendering has run (stored-csv.ts).
   */
  csv_head: string | null;
  csv_tail: string | null;
}

/** A person's visits to one site. */
export interface PersonSitesTable {
  person_pk: number;
  site_pk: number;
  person_id: string;
  visit_count: number;
  first_seen: number;
  last_seen: number;
  /** The person's latest visit to any site (`people.last_seen`), written with the row: an account-wide order per site. */
  person_last_seen: number;
  /** The person's `is_hot_lead`, written with the row: hot leads' rows have indexes of their own. */
  person_is_hot_lead: number;
  /** How many sites the person visited, written with the row: a person seen on one site alone needs no lookup across sites. */
  person_site_count: number;
  /** This site's figures and attribution as stored JSON pieces (person-row.ts). */
  json_figures: string | null;
  json_site: string | null;
}

export interface EventsTable {
  pk: Generated<number>;
  account_id: string;
  person_pk: number;
  site_pk: number;
  event_id: string;
  event_type: string;
  ts: number;
  /** The event exactly as the API returns it, as JSON text. */
  body: string;
}

export interface PersonPagesTable {
  person_pk: number;
  path: string;
}

/** An export job and how far its run has got. */
export interface ExportJobsTable {
  id: string;
  account_id: string;
  status: 'processing' | 'complete' | 'failed';
  /** The validated filters, as JSON. */
  filters: string;
  filename: string;
  created_at: number;
  completed_at: number | null;
  row_count: number | null;
  partial: number | null;
  error: string | null;
  /** How many rows the file will hold (the selected people, up to the cap); null until collection ends. */
  member_count: number | null;
  /** Rows written to the file so far. */
  next_seq: Generated<number>;
  chunk_count: Generated<number>;
  /** Runs started, counting resumptions after a restart. */
  attempts: Generated<number>;
  /** The "now" (epoch seconds) the selection's timeframe is measured from; set when collection starts. */
  selected_at: number | null;
  /** The highest people pk when collection started: it walks pks up to here. Null before it starts. */
  collect_until_pk: number | null;
  /** People with a pk up to here have been collected. */
  collect_after_pk: Generated<number>;
  /** Members collected so far (before the cap). */
  collected: Generated<number>;
  /** The sort key of the last row written (null before the first): writing resumes after it. */
  written_k1: number | string | null;
  written_k2: number | string | null;
  written_id: string | null;
  /** The runner holding the job (a random id per runner), and until when in epoch seconds; null when free. */
  lease_owner: string | null;
  lease_until: number | null;
}

/** A person a job selected, keyed by (job, run, sort keys, person id): each run is in file order. */
export interface ExportMembersTable {
  job_id: string;
  /** The sorted run the member belongs to: the range of people pks it was collected from. */
  run: number;
  /** Sort keys, integer or text; a null text key is stored as the integer 0, which sorts before any text. */
  k1: number | string;
  k2: number | string;
  person_id: string;
  person_pk: number;
  /** The site the row is attributed to. */
  site_pk: number;
}

export interface ExportChunksTable {
  job_id: string;
  seq: number;
  data: string;
}

/** A partner's webhook endpoint. */
export interface WebhookEndpointsTable {
  id: string;
  account_id: string;
  url: string;
  /** `whsec_…`: signs every delivery. */
  secret: string;
  /** The secret before the last rotation: it signs too until `previous_secret_until`. */
  previous_secret: string | null;
  previous_secret_until: number | null;
  /** The enabled event kinds, comma-separated. */
  events: string;
  enabled: Generated<number>;
  /** Why the endpoint was disabled by delivery (a 410 from the receiver), if it was. */
  disabled_reason: string | null;
  created_at: number;
  updated_at: number;
}

/** One delivery of the outbox: what to send to one endpoint, and where its sending stands. */
export interface WebhookDeliveriesTable {
  pk: Generated<number>;
  /** `msg_…`: the `webhook-id`, the same on every attempt. */
  id: string;
  endpoint_id: string;
  event: string;
  domain: string;
  client_ref: string | null;
  /** The payload's `data` member as JSON text. */
  data: string;
  status: 'pending' | 'delivered' | 'failed';
  /** Attempts in the current run of the retry schedule (a redelivery starts a new run). */
  attempts: Generated<number>;
  next_attempt_at: number;
  /** The dispatcher that claimed the delivery, and until when; an expired claim may be taken over. */
  lease_owner: string | null;
  lease_until: number | null;
  last_status: number | null;
  last_attempt_at: number | null;
  created_at: number;
  /** 1 for a test delivery an admin asked for (`POST /_admin/webhooks/{id}/test`). */
  test: Generated<number>;
}

/** One attempt to send a delivery. */
export interface WebhookAttemptsTable {
  delivery_pk: number;
  seq: number;
  at: number;
  /** The receiver's HTTP status; null when no answer came (refused, timed out). */
  status: number | null;
  latency_ms: number;
  error: string | null;
  /** The headers sent, as JSON text (signatures included); null for attempts logged before they were kept. */
  headers: string | null;
}

/** One rate-limit bucket's current window: when it opened (epoch ms, the API's clock) and the requests counted in it. */
export interface RateLimitsTable {
  bucket: string;
  window_started_ms: number;
  used: number;
}

/**
 * Events loaded per site per hour and per day (two rows for each event: one of each span), kept
 * in the transaction that inserts the events, so stats sum whole buckets instead of counting events.
 */
export interface EventCountsTable {
  account_id: string;
  site_pk: number;
  /** The bucket's length in seconds: 3600 (an hour) or 86400 (a UTC day). */
  span: number;
  /** Epoch seconds of the bucket's first second, a multiple of `span`. */
  starts_at: number;
  events: number;
}

/** How many people (or companies) of an account were seen on exactly this set of sites. */
export interface SiteSetsTable {
  account_id: string;
  kind: 'person' | 'company';
  /** The sites' keys between commas, ascending (`,3,7,`); `''` for none. */
  sites: string;
  members: number;
}

/** The set of sites each person or company is counted under in `site_sets`. */
export interface SiteSetOwnersTable {
  kind: 'person' | 'company';
  /** The person's or the company's pk. */
  owner_pk: number;
  sites: string;
}
