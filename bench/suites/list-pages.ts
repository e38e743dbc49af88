/**
 * The naive list pages (people and companies) that the floors serve, on any runtime and driver:
 * the same keyset SQL as the core's stores, rows mapped to the API's objects, one
 * `JSON.stringify`. Like the core it resolves `domain`/`client_ref` to sites per request; it does
 * no auth and no signing. Used in process by people-floor.ts (better-sqlite3) and
 * pg-people-floor.ts, and over HTTP by the bare naive servers of every runtime (naive-list.ts).
 */
import { isoSeconds } from '../../core/time/iso.ts';

const PAGE = 100;

/** What one list request asks for. */
export interface ListRequest {
  list: 'people' | 'companies';
  /** Set for a domain-scoped key: the domain whose sites (it and its subdomains) it reads. */
  scopeDomain?: string;
  domain?: string;
  clientRef?: string;
  /** Epoch seconds. */
  lastSeenAfter?: number;
  hotLeads?: boolean;
  /** Keyset position after which the page starts. */
  after?: [number, string];
}

/** A site as the floors read it. */
export interface SiteRow {
  pk: number;
  domain: string;
  client_ref: string | null;
}

/** A row of either list. */
export type Row = Record<string, unknown> & { last_seen: number; id: string };

const PERSON_COLUMNS =
  'p.id, p.email, p.business_email, p.personal_email, p.first_name, p.last_name, p.title, p.company, p.location, p.region, p.linkedin_url, p.phone, ' +
  'p.profile_image_url, p.is_hot_lead, p.classified_seniority, p.classified_job_function, p.traffic_type, p.ad_platform, ' +
  'c.id AS c_id, c.name AS c_name, c.domain AS c_domain, c.standardized_industry AS c_industry, c.location AS c_location, c.employee_count AS c_employees';
const COMPANY_COLUMNS =
  'c.id, c.name, c.domain, c.standardized_industry, c.location, c.region, c.linkedin_url, c.employee_count, c.is_hot_company, c.traffic_type, c.ad_platform';

/** What one page runs, and what rendering its rows needs; `?` marks each parameter. */
export interface PagePlan {
  request: ListRequest;
  sql: string;
  params: unknown[];
  view: View;
  selected: SiteRow[];
  byPk: Map<number, SiteRow>;
}

/**
 * The SQL of one page, as a naive server resolves it per request from the account's sites
 * (`domain`/`client_ref` filters and a scoped key's ceiling); undefined when no site is selected.
 */
export function planPage(request: ListRequest, sites: SiteRow[], accountId: string): PagePlan | undefined {
  const byPk = new Map(sites.map((s) => [s.pk, s]));
  const within = (s: SiteRow, domain: string) => s.domain === domain || s.domain.endsWith(`.${domain}`);
  const filtered = request.domain !== undefined || request.clientRef !== undefined;
  const matching = sites.filter((s) => (request.domain === undefined || within(s, request.domain)) && (request.clientRef === undefined || s.client_ref === request.clientRef));
  // A scoped key's ceiling is its domain and its subdomains; client filters only narrow it.
  const scoped = request.scopeDomain === undefined ? undefined : sites.filter((s) => within(s, request.scopeDomain!) && (!filtered || matching.includes(s)));
  const selected = scoped ?? matching;
  if (selected.length === 0) return undefined;
  const view: View = scoped ? (scoped.length === 1 ? 'site' : 'scope') : filtered ? 'sites' : 'account';
  const { sql, params } = request.list === 'people' ? peopleSql(view, request, selected, accountId) : companiesSql(view, request, selected, accountId);
  return { request, sql, params, view, selected, byPk };
}

/** A page's rows (one more than a page, when there is a next) as the body: objects, one `JSON.stringify`. */
export function renderPage(plan: PagePlan, rows: Row[]): string {
  const { request, view, selected, byPk } = plan;
  const page = rows.slice(0, PAGE);
  const data = page.map((r) => (request.list === 'people' ? toPerson(r, view === 'site' ? selected[0]! : byPk.get(r.site_pk as number)!) : toCompany(r)));
  const last = page[page.length - 1];
  const next = rows.length > PAGE && last ? base64Url(JSON.stringify([last.last_seen, last.id])) : undefined;
  return body(data, next);
}

/** The body of a page that selects no site. */
export const EMPTY_PAGE = (): string => body([], undefined);

/** Prepares a statement on any SQLite driver: positional parameters, rows as objects. */
export type PrepareList = (sql: string) => { all(...params: unknown[]): unknown[] };

/** Pages over one connection: each planned per request, its statement prepared once per SQL text. */
export function listPages(prepare: PrepareList): (request: ListRequest, sites: SiteRow[], accountId: string) => string {
  const statements = new Map<string, ReturnType<PrepareList>>();
  return (request, sites, accountId) => {
    const plan = planPage(request, sites, accountId);
    if (!plan) return EMPTY_PAGE();
    let statement = statements.get(plan.sql);
    if (!statement) statements.set(plan.sql, (statement = prepare(plan.sql)));
    return renderPage(plan, statement.all(...plan.params) as Row[]);
  };
}

/** The keyset position a page's `nextCursor` carries (the inverse of what {@link renderPage} writes). */
export function decodeCursor(cursor: string): [number, string] {
  return JSON.parse(atob(cursor.replace(/-/g, '+').replace(/_/g, '/'))) as [number, string];
}

/** Which rows a page reads: one site's, several sites' summed per owner (a scoped key), or the account's (narrowed by sites). */
export type View = 'site' | 'scope' | 'sites' | 'account';

function peopleSql(view: View, r: ListRequest, sites: SiteRow[], accountId: string) {
  const params: unknown[] = [];
  const where: string[] = [];
  const { list, pks } = placeholders(sites);
  const [seen, id] = sortColumns(view, 'p', 'person');
  // Attributed to the most recent of the selected sites, as the core does.
  const latestSite = (person: string) => `(SELECT x.site_pk FROM person_sites x WHERE x.person_pk = ${person} AND x.site_pk IN (${list}) ORDER BY x.last_seen DESC, x.site_pk DESC LIMIT 1)`;
  let sql: string;
  if (view === 'site') {
    sql = `SELECT ${PERSON_COLUMNS}, ps.visit_count, ps.first_seen, ps.last_seen FROM person_sites ps JOIN people p ON p.pk = ps.person_pk LEFT JOIN companies c ON c.pk = p.company_pk`;
    where.push('ps.site_pk = ?');
    params.push(pks[0]);
  } else if (view === 'scope') {
    // The naive way to sum a person's visits over several sites: group every visit in scope, then page.
    sql =
      `SELECT ${PERSON_COLUMNS}, g.visit_count, g.first_seen, g.last_seen, g.site_pk FROM ` +
      `(SELECT ps.person_pk, sum(ps.visit_count) AS visit_count, min(ps.first_seen) AS first_seen, max(ps.last_seen) AS last_seen, ${latestSite('ps.person_pk')} AS site_pk ` +
      `FROM person_sites ps WHERE ps.site_pk IN (${list}) GROUP BY ps.person_pk) g ` +
      'JOIN people p ON p.pk = g.person_pk LEFT JOIN companies c ON c.pk = p.company_pk';
    params.push(...pks, ...pks);
  } else if (view === 'account') {
    sql = `SELECT ${PERSON_COLUMNS}, p.visit_count, p.first_seen, p.last_seen, p.last_site_pk AS site_pk FROM people p LEFT JOIN companies c ON c.pk = p.company_pk`;
    where.push('p.account_id = ?');
    params.push(accountId);
  } else {
    sql = `SELECT ${PERSON_COLUMNS}, p.visit_count, p.first_seen, p.last_seen, ${latestSite('p.pk')} AS site_pk FROM people p LEFT JOIN companies c ON c.pk = p.company_pk`;
    where.push('p.account_id = ?', `EXISTS (SELECT 1 FROM person_sites ps WHERE ps.person_pk = p.pk AND ps.site_pk IN (${list}))`);
    params.push(...pks, accountId, ...pks);
  }
  if (r.hotLeads) where.push('p.is_hot_lead = 1');
  return finish(sql, where, params, seen, id, r);
}

function companiesSql(view: View, r: ListRequest, sites: SiteRow[], accountId: string) {
  const params: unknown[] = [];
  const where: string[] = [];
  const { list, pks } = placeholders(sites);
  const [seen, id] = sortColumns(view, 'c', 'company');
  let sql: string;
  if (view === 'site') {
    sql = `SELECT ${COMPANY_COLUMNS}, cs.visit_count, cs.first_seen, cs.last_seen FROM company_sites cs JOIN companies c ON c.pk = cs.company_pk`;
    where.push('cs.site_pk = ?');
    params.push(pks[0]);
  } else if (view === 'scope') {
    sql =
      `SELECT ${COMPANY_COLUMNS}, g.visit_count, g.first_seen, g.last_seen FROM ` +
      `(SELECT cs.company_pk, sum(cs.visit_count) AS visit_count, min(cs.first_seen) AS first_seen, max(cs.last_seen) AS last_seen FROM company_sites cs WHERE cs.site_pk IN (${list}) GROUP BY cs.company_pk) g ` +
      'JOIN companies c ON c.pk = g.company_pk';
    params.push(...pks);
  } else {
    sql = `SELECT ${COMPANY_COLUMNS}, c.visit_count, c.first_seen, c.last_seen FROM companies c`;
    where.push('c.account_id = ?');
    params.push(accountId);
    if (view === 'sites') {
      where.push(`EXISTS (SELECT 1 FROM company_sites cs WHERE cs.company_pk = c.pk AND cs.site_pk IN (${list}))`);
      params.push(...pks);
    }
  }
  return finish(sql, where, params, seen, id, r);
}

/** The selected sites as `?` placeholders for an `IN (…)`, and their pks to bind. */
function placeholders(sites: SiteRow[]): { list: string; pks: number[] } {
  return { list: sites.map(() => '?').join(', '), pks: sites.map((s) => s.pk) };
}

/** The sort key's columns: one site's rows (`ps`/`cs`), a scope's grouped rows (`g`), or the table's own. */
function sortColumns(view: View, table: 'p' | 'c', entity: 'person' | 'company'): [string, string] {
  if (view === 'site') return [`${table}s.last_seen`, `${table}s.${entity}_id`];
  return [view === 'scope' ? 'g.last_seen' : `${table}.last_seen`, `${table}.id`];
}

/** Adds the lastSeen filter, the keyset condition, the order and the limit. */
function finish(sql: string, where: string[], params: unknown[], seen: string, id: string, r: ListRequest) {
  if (r.lastSeenAfter !== undefined) where.push(`${seen} > ?`), params.push(r.lastSeenAfter);
  if (r.after) where.push(`(${seen}, ${id}) < (?, ?)`), params.push(...r.after);
  return { sql: `${sql}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY ${seen} DESC, ${id} DESC LIMIT ${PAGE + 1}`, params };
}

function body(data: unknown[], nextCursor: string | undefined): string {
  return JSON.stringify({ data, pagination: { limit: PAGE, count: data.length, ...(nextCursor === undefined ? {} : { nextCursor }) } });
}

function toPerson(r: Row, site: SiteRow) {
  return {
    id: r.id,
    email: r.email,
    businessEmail: r.business_email,
    personalEmail: r.personal_email,
    firstName: r.first_name,
    lastName: r.last_name,
    title: r.title,
    company: r.company,
    location: r.location,
    region: r.region,
    linkedinUrl: r.linkedin_url,
    phone: r.phone,
    profileImageUrl: r.profile_image_url,
    visitCount: r.visit_count,
    firstSeen: isoSeconds(r.first_seen as number),
    lastSeen: isoSeconds(r.last_seen),
    isHotLead: r.is_hot_lead === 1,
    classifiedSeniority: r.classified_seniority,
    classifiedJobFunction: r.classified_job_function,
    trafficType: r.traffic_type,
    adPlatform: r.ad_platform,
    companyData:
      r.c_id === null
        ? null
        : { companyId: r.c_id, name: r.c_name, domain: r.c_domain, standardizedIndustry: r.c_industry, location: r.c_location, employeeCount: r.c_employees },
    domain: site.domain,
    clientRef: site.client_ref,
  };
}

function toCompany(r: Row) {
  return {
    id: r.id,
    name: r.name,
    domain: r.domain,
    standardizedIndustry: r.standardized_industry,
    location: r.location,
    region: r.region,
    linkedinUrl: r.linkedin_url,
    employeeCount: r.employee_count,
    visitCount: r.visit_count,
    firstSeen: isoSeconds(r.first_seen as number),
    lastSeen: isoSeconds(r.last_seen),
    isHotCompany: r.is_hot_company === 1,
    trafficType: r.traffic_type,
    adPlatform: r.ad_platform,
  };
}

/** base64url of ASCII text (a cursor's JSON), with what every runtime has. */
function base64Url(text: string): string {
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
