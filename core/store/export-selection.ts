import { sql, type Expression, type ExpressionBuilder, type RawBuilder, type SqlBool } from 'kysely';
import type { ExportFilters } from '../exports/filters.ts';
import type { Site } from '../scope/view.ts';
import { domainMatches } from '../scope/domain.ts';
import type { Database } from './schema.ts';
import type { ExportKeys } from './dialect/index.ts';
import { latestVisitedOf, visitedAnyOf } from './site-visits.ts';

type PeopleEb = ExpressionBuilder<Database & { p: Database['people'] }, 'p'>;

const TIMEFRAME_SECONDS = { '24h': 86_400, '7d': 7 * 86_400, '30d': 30 * 86_400, '90d': 90 * 86_400 } as const;

/** Text columns of a person that array filters compare, case-insensitively. */
const PERSON_TEXT_FILTERS = {
  regions: 'region',
  seniority: 'classified_seniority',
  jobFunctions: 'classified_job_function',
  campaigns: 'campaign',
  trafficTypes: 'traffic_type',
  adPlatforms: 'ad_platform',
} as const;

/** Where a selection starts: the account, its sites, and "now". */
export interface SelectionContext {
  accountId: string;
  sites: Site[];
  nowSeconds: number;
}

/** The sites a `domains` filter selects (each domain with its subdomains), or null when there is no such filter. */
export function sitesForDomains(filters: ExportFilters, sites: Site[]): Site[] | null {
  if (!filters.domains) return null;
  return sites.filter((site) => filters.domains!.some((d) => domainMatches(site.domain, d)));
}

/** The WHERE conditions for every filter, each over the whole account, as Kysely expressions. */
export function selectionConditions(eb: PeopleEb, filters: ExportFilters, ctx: SelectionContext) {
  const conditions: Expression<SqlBool>[] = [eb('p.account_id', '=', ctx.accountId)];
  const lowerIn = (column: RawBuilder<unknown>, values: string[]) => eb(sql`lower(${column})`, 'in', values.map((v) => v.toLowerCase()));

  if (filters.isHotLead !== undefined) conditions.push(eb('p.is_hot_lead', '=', filters.isHotLead ? 1 : 0));
  if (filters.timeframe && filters.timeframe !== 'all') {
    const column = filters.dateField === 'firstSeen' ? 'p.first_seen' : 'p.last_seen';
    conditions.push(eb(column, '>=', ctx.nowSeconds - TIMEFRAME_SECONDS[filters.timeframe]));
  }
  for (const [filter, column] of Object.entries(PERSON_TEXT_FILTERS) as [keyof typeof PERSON_TEXT_FILTERS, string][]) {
    const values = filters[filter];
    if (values) conditions.push(lowerIn(sql.ref(`p.${column}`), values));
  }
  if (filters.industries) {
    const industries = filters.industries.map((v) => v.toLowerCase());
    conditions.push(
      eb('p.company_pk', 'in', eb.selectFrom('companies as c').select('c.pk').where('c.account_id', '=', ctx.accountId).where(sql`lower(c.standardized_industry)`, 'in', industries)),
    );
  }
  const domainSites = sitesForDomains(filters, ctx.sites);
  if (domainSites) {
    const pks = domainSites.map((s) => s.pk);
    conditions.push(pks.length === 0 ? sql<boolean>`1 = 0` : visitedAnyOf(pks));
  }
  if (filters.pages) {
    conditions.push(eb.exists(eb.selectFrom('person_pages as pp').select('pp.path').whereRef('pp.person_pk', '=', 'p.pk').where('pp.path', 'in', filters.pages)));
  }
  if (filters.visitCountMin !== undefined) conditions.push(eb('p.visit_count', '>=', filters.visitCountMin));
  for (const [filter, column] of [['hasBusinessEmail', 'business_email'], ['hasLinkedIn', 'linkedin_url'], ['hasPhone', 'phone']] as const) {
    const wanted = filters[filter];
    if (wanted === undefined) continue;
    const present = sql<boolean>`coalesce(${sql.ref(`p.${column}`)}, '') <> ''`;
    conditions.push(wanted ? present : sql<boolean>`not (${present})`);
  }
  if (filters.multiClientOnly) {
    // A client is a clientRef, or the domain itself for a site registered without one.
    conditions.push(sql<boolean>`(select count(distinct coalesce(s.client_ref, s.domain)) from ${sql.table('person_sites')} ps join ${sql.table('sites')} s on s.pk = ps.site_pk where ps.person_pk = p.pk) > 1`);
  }
  if (filters.crmStatus === 'in_crm') conditions.push(eb('p.crm_status', 'in', ['in_crm', 'customer']));
  if (filters.crmStatus === 'customers') conditions.push(eb('p.crm_status', '=', 'customer'));
  if (filters.crmStatus === 'not_in_crm') conditions.push(eb('p.crm_status', '=', 'not_in_crm'));
  if (filters.search) {
    const like = `%${filters.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const fields = [sql`coalesce(p.first_name, '') || ' ' || coalesce(p.last_name, '')`, sql`p.company`, sql`p.email`, sql`p.business_email`, sql`p.personal_email`];
    conditions.push(eb.or(fields.map((f) => sql<boolean>`lower(${f}) like ${like} escape '\\'`)));
  }
  return eb.and(conditions);
}

/** Whether the file runs in descending order (the default). */
export function isDescending(filters: ExportFilters): boolean {
  return filters.sortOrder !== 'asc';
}

/**
 * The two sort keys of the file order (the person id follows them, in the same direction), as the
 * dialect stores them: a null text key orders before every text value, so nulls come first
 * ascending and last descending, and a row-value comparison (where a null would make the answer
 * unknown) can walk the order. A sort on one field has a constant second key.
 */
export function sortKeys(filters: ExportFilters, keys: ExportKeys): [RawBuilder<number | string>, RawBuilder<number | string>] {
  const text = (column: string) => keys.text(sql.ref(column));
  const integer = (column: string) => keys.integer(sql.ref(column));
  const none = keys.integer(sql`0`);
  switch (filters.sortBy ?? 'lastSeen') {
    case 'lastSeen':
      return [integer('p.last_seen'), none];
    case 'firstSeen':
      return [integer('p.first_seen'), none];
    case 'visitCount':
      return [integer('p.visit_count'), none];
    case 'name':
      return [text('p.last_name'), text('p.first_name')];
    case 'company':
      return [text('p.company'), none];
    case 'email':
      return [text('p.email'), none];
  }
}

/** The site each selected person is attributed to: the latest matching one under `domains`, else their latest. */
export function attributedSite(filters: ExportFilters, sites: Site[]): RawBuilder<number> {
  const domainSites = sitesForDomains(filters, sites);
  if (!domainSites || domainSites.length === 0) return sql<number>`p.last_site_pk`;
  return latestVisitedOf(domainSites.map((s) => s.pk));
}
