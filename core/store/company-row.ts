import { sql, type RawBuilder } from 'kysely';
import { jsonScalar, type JsonValue, type SqlDialect } from './dialect/index.ts';
import { figuresJsonSql } from './person-row.ts';

/**
 * The one mapping from rows to a Company, in the field order of the `Company` type, and its
 * stored pieces (kept by stored-text.ts), which a page concatenates as it does a person's:
 *
 *     json_head      {"id":…,…,"employeeCount":…,              companies
 *     json_figures   "visitCount":3,"firstSeen":"…","lastSeen":"…"   companies (account-wide) or company_sites (one site)
 *     json_tail      ,"isHotCompany":…,"trafficType":…,"adPlatform":…}   companies
 *
 * A scoped key over several sites sums its figures at query time (`figuresJsonSql`, shared with people).
 */

/** The Company fields before the figures, from the company aliased `company`. */
function headFields(company: string): Record<string, JsonValue> {
  const v = (column: string) => jsonScalar(sql.ref(`${company}.${column}`));
  return {
    id: v('id'), name: v('name'), domain: v('domain'), standardizedIndustry: v('standardized_industry'),
    location: v('location'), region: v('region'), linkedinUrl: v('linkedin_url'), employeeCount: v('employee_count'),
  };
}

/** The Company fields after the figures. */
function tailFields(company: string, dialect: SqlDialect): Record<string, JsonValue> {
  const v = (column: string) => jsonScalar(sql.ref(`${company}.${column}`));
  return { isHotCompany: dialect.jsonBoolean(sql.ref(`${company}.is_hot_company`)), trafficType: v('traffic_type'), adPlatform: v('ad_platform') };
}

/**
 * The Company resource as JSON text rendered from its columns: the reference the stored pieces
 * must equal. `activity` is the alias whose visit count and first/last seen the view reports
 * (`c` account-wide, `cs` for a scoped key's sites); `c` is the company.
 */
export function companyJsonSql(activity: 'c' | 'cs', dialect: SqlDialect): RawBuilder<string> {
  return dialect.jsonObject({
    ...headFields('c'),
    visitCount: jsonScalar(sql.ref(`${activity}.visit_count`)),
    firstSeen: jsonScalar(dialect.isoInstant(`${activity}.first_seen`)), lastSeen: jsonScalar(dialect.isoInstant(`${activity}.last_seen`)),
    ...tailFields('c', dialect),
  });
}

/** `json_head` rendered from the company aliased `company`: the object's text with its closing brace made a comma. */
export function companyHeadJsonSql(company: string, dialect: SqlDialect): RawBuilder<string> {
  const head = dialect.jsonObject(headFields(company));
  return sql<string>`(substr(${head}, 1, length(${head}) - 1) || ',')`;
}

/** `json_figures` rendered from the row aliased `activity` (a company, or a company's activity on one site). */
export function companyFiguresJsonSql(activity: string, dialect: SqlDialect): RawBuilder<string> {
  return figuresJsonSql(activity, dialect);
}

/** `json_tail` rendered from the company aliased `company`: the object's members after a comma, and its closing brace. */
export function companyTailJsonSql(company: string, dialect: SqlDialect): RawBuilder<string> {
  return sql<string>`(',' || substr(${dialect.jsonObject(tailFields(company, dialect))}, 2))`;
}

/** A company's whole JSON from stored text: the company `c`'s head and tail around `figures`. */
export function storedCompanyJsonSql(figures: RawBuilder<string>): RawBuilder<string> {
  return sql<string>`(c.json_head || ${figures} || c.json_tail)`;
}
