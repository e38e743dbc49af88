import { sql, type RawBuilder } from 'kysely';
import type { Site } from '../scope/view.ts';
import { jsonScalar, jsonText, type JsonValue, type SqlDialect } from './dialect/index.ts';

/**
 * The one mapping from rows to a Person, and the stored pieces of its JSON (kept by
 * stored-text.ts) that a page concatenates instead of rendering 31 columns:
 *
 *     json_head      {"id":…,…,"profileImageUrl":…,          people: every field before the figures
 *     json_figures   "visitCount":3,"firstSeen":"…","lastSeen":"…"   people (account-wide) or person_sites (one site)
 *     json_tail      ,"isHotLead":…,…,"companyData":{…}      people: every field after them, the company's included
 *     json_site      ,"domain":"…","clientRef":…}           people (their latest site) or person_sites (that site)
 */

/** The Person fields before the view's figures, from the person `p`. */
function headFields(): Record<string, JsonValue> {
  const v = (column: string) => jsonScalar(sql.ref(column));
  return {
    id: v('p.id'), email: v('p.email'), businessEmail: v('p.business_email'), personalEmail: v('p.personal_email'),
    firstName: v('p.first_name'), lastName: v('p.last_name'), title: v('p.title'), company: v('p.company'),
    location: v('p.location'), region: v('p.region'), linkedinUrl: v('p.linkedin_url'), phone: v('p.phone'),
    profileImageUrl: v('p.profile_image_url'),
  };
}

/** The Person fields after the view's figures, from the person `p` and its left-joined company `c`. */
function tailFields(dialect: SqlDialect): Record<string, JsonValue> {
  const v = (column: string) => jsonScalar(sql.ref(column));
  const company = dialect.jsonObjectOrNull(sql`c.id is null`, {
    companyId: v('c.id'), name: v('c.name'), domain: v('c.domain'), standardizedIndustry: v('c.standardized_industry'),
    location: v('c.location'), employeeCount: v('c.employee_count'),
  });
  return {
    isHotLead: dialect.jsonBoolean(sql.ref('p.is_hot_lead')),
    classifiedSeniority: v('p.classified_seniority'), classifiedJobFunction: v('p.classified_job_function'),
    trafficType: v('p.traffic_type'), adPlatform: v('p.ad_platform'), companyData: jsonText(company),
  };
}

/**
 * The Person resource as JSON text rendered from its columns, without the attribution fields
 * (`domain`, `clientRef`: see {@link withSite}). `activity` is the table alias whose visit count
 * and first/last seen the view reports (`p` account-wide, `ps` for a scoped key's sites); `c` is
 * the joined company. The API reads stored text instead; this rendering is the reference the
 * stored pieces must equal (test/core/stored-text.test.ts), and what exports still parse.
 */
export function personJsonSql(activity: 'p' | 'ps', dialect: SqlDialect): RawBuilder<string> {
  const v = (column: string) => jsonScalar(sql.ref(column));
  return dialect.jsonObject({
    ...headFields(),
    visitCount: v(`${activity}.visit_count`),
    firstSeen: jsonScalar(dialect.isoInstant(`${activity}.first_seen`)), lastSeen: jsonScalar(dialect.isoInstant(`${activity}.last_seen`)),
    ...tailFields(dialect),
  });
}

/** Completes a person's JSON from {@link personJsonSql} with the site the row is attributed to. */
export function withSite(json: string, site: Pick<Site, 'domain' | 'clientRef'>): string {
  return `${json.slice(0, -1)},"domain":${JSON.stringify(site.domain)},"clientRef":${JSON.stringify(site.clientRef)}}`;
}

/** `json_head` rendered from the person `p`: the object's text with its closing brace made a comma. */
export function headJsonSql(dialect: SqlDialect): RawBuilder<string> {
  const head = dialect.jsonObject(headFields());
  return sql<string>`(substr(${head}, 1, length(${head}) - 1) || ',')`;
}

/** `json_tail` rendered from the person `p` and its left-joined company `c`: the object's members after a comma. */
export function tailJsonSql(dialect: SqlDialect): RawBuilder<string> {
  const tail = dialect.jsonObject(tailFields(dialect));
  return sql<string>`(',' || substr(${tail}, 2, length(${tail}) - 2))`;
}

/**
 * `"visitCount":…,"firstSeen":"…","lastSeen":"…"` from the figures of the row aliased `activity`
 * (stored as `json_figures`, or summed at query time). Integers and instants need no escaping, so
 * both backends spell it with `||` alike (Postgres's `text || bigint` writes the decimal digits).
 */
export function figuresJsonSql(activity: string, dialect: SqlDialect): RawBuilder<string> {
  const ref = (column: string) => sql.ref(`${activity}.${column}`);
  return sql<string>`('"visitCount":' || ${ref('visit_count')} || ',"firstSeen":"' || ${dialect.isoInstant(`${activity}.first_seen`)} || '","lastSeen":"' || ${dialect.isoInstant(`${activity}.last_seen`)} || '"')`;
}

/** `json_site` rendered from the site aliased `site`: its attribution members and the closing brace. */
export function siteJsonSql(site: string, dialect: SqlDialect): RawBuilder<string> {
  const object = dialect.jsonObject({ domain: jsonScalar(sql.ref(`${site}.domain`)), clientRef: jsonScalar(sql.ref(`${site}.client_ref`)) });
  return sql<string>`(',' || substr(${object}, 2))`;
}

/** A person's whole JSON from its four pieces, in order (columns, or expressions rendering them). */
export function joinedPersonJsonSql(head: RawBuilder<string>, figures: RawBuilder<string>, tail: RawBuilder<string>, site: RawBuilder<string>): RawBuilder<string> {
  return sql<string>`(${head} || ${figures} || ${tail} || ${site})`;
}

/**
 * A person's whole JSON from stored text: the person `p`'s head and tail around `figures`,
 * closed by `site` (each a `json_figures`/`json_site` column or an expression rendering one).
 */
export function storedPersonJsonSql(figures: RawBuilder<string>, site: RawBuilder<string>): RawBuilder<string> {
  return joinedPersonJsonSql(sql`p.json_head`, figures, sql`p.json_tail`, site);
}

/**
 * A person's stored JSON for the account view, given the people alias `p`: the Person exactly as
 * `GET /v1/people/{id}` returns it to an account key (figures over all sites, attributed to the
 * latest visit), from the person's row alone. For another attribution (an export under a
 * `domains` filter), use {@link personJsonAtSiteSql} with that site's `person_sites` row.
 */
export function accountPersonJsonSql(): RawBuilder<string> {
  return storedPersonJsonSql(sql`p.json_figures`, sql`p.json_site`);
}

/**
 * A person's stored JSON with account-wide figures, attributed to the site of the `person_sites`
 * row aliased `ps` (joined on `ps.person_pk = p.pk and ps.site_pk = <the site>`): what the list
 * returns an account key under a `domain`/`client_ref` filter selecting that site.
 */
export function personJsonAtSiteSql(): RawBuilder<string> {
  return storedPersonJsonSql(sql`p.json_figures`, sql`ps.json_site`);
}

/** A person's stored JSON without the attribution (what {@link personJsonSql} renders account-wide), for {@link withSite}. */
export function accountPersonJsonWithoutSiteSql(): RawBuilder<string> {
  return storedPersonJsonSql(sql`p.json_figures`, sql`'}'`);
}
