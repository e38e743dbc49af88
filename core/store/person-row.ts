import { sql, type RawBuilder } from 'kysely';
import type { Site } from '../scope/view.ts';
import { jsonScalar, jsonText, type SqlDialect } from './dialect/index.ts';

/**
 * The Person resource as JSON text written by the database (see the dialect's `jsonObject`), without the attribution fields (`domain`,
 * `clientRef`: see {@link withSite}). The one mapping from rows to a Person: list pages and
 * single people send this text as it is, exports parse it. A list page is mostly the cost of
 * turning 31 columns a row into JS values and back into text; SQLite writes the text directly,
 * in less than half the time. `activity` is the table alias whose visit count and first/last
 * seen the view reports (`p` account-wide, `ps` for a scoped key's sites); `c` is the joined company.
 */
export function personJsonSql(activity: 'p' | 'ps', dialect: SqlDialect): RawBuilder<string> {
  const v = (column: string) => jsonScalar(sql.ref(column));
  const company = dialect.jsonObjectOrNull(sql`c.id is null`, {
    companyId: v('c.id'), name: v('c.name'), domain: v('c.domain'), standardizedIndustry: v('c.standardized_industry'),
    location: v('c.location'), employeeCount: v('c.employee_count'),
  });
  return dialect.jsonObject({
    id: v('p.id'), email: v('p.email'), businessEmail: v('p.business_email'), personalEmail: v('p.personal_email'),
    firstName: v('p.first_name'), lastName: v('p.last_name'), title: v('p.title'), company: v('p.company'),
    location: v('p.location'), region: v('p.region'), linkedinUrl: v('p.linkedin_url'), phone: v('p.phone'),
    profileImageUrl: v('p.profile_image_url'), visitCount: v(`${activity}.visit_count`),
    firstSeen: jsonScalar(dialect.isoInstant(`${activity}.first_seen`)), lastSeen: jsonScalar(dialect.isoInstant(`${activity}.last_seen`)),
    isHotLead: dialect.jsonBoolean(sql.ref('p.is_hot_lead')),
    classifiedSeniority: v('p.classified_seniority'), classifiedJobFunction: v('p.classified_job_function'),
    trafficType: v('p.traffic_type'), adPlatform: v('p.ad_platform'), companyData: jsonText(company),
  });
}

/** Completes a person's JSON from {@link personJsonSql} with the site the row is attributed to. */
export function withSite(json: string, site: Pick<Site, 'domain' | 'clientRef'>): string {
  return `${json.slice(0, -1)},"domain":${JSON.stringify(site.domain)},"clientRef":${JSON.stringify(site.clientRef)}}`;
}
