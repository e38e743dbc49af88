import { sql, type RawBuilder } from 'kysely';
import type { Site } from '../scope/view.ts';
import { isoSql } from './iso-sql.ts';

/**
 * The Person resource as JSON text written by SQLite, without the attribution fields (`domain`,
 * `clientRef`: see {@link withSite}). The one mapping from rows to a Person: list pages and
 * single people send this text as it is, exports parse it. A list page is mostly the cost of
 * turning 31 columns a row into JS values and back into text; SQLite writes the text directly,
 * in less than half the time. `activity` is the table alias whose visit count and first/last
 * seen the view reports (`p` account-wide, `ps` for a scoped key's sites); `c` is the joined company.
 */
export function personJsonSql(activity: 'p' | 'ps'): RawBuilder<string> {
  const company = sql`iif(c.id is null, null, json_object(
    'companyId', c.id, 'name', c.name, 'domain', c.domain, 'standardizedIndustry', c.standardized_industry,
    'location', c.location, 'employeeCount', c.employee_count))`;
  return sql<string>`json_object(
    'id', p.id, 'email', p.email, 'businessEmail', p.business_email, 'personalEmail', p.personal_email,
    'firstName', p.first_name, 'lastName', p.last_name, 'title', p.title, 'company', p.company,
    'location', p.location, 'region', p.region, 'linkedinUrl', p.linkedin_url, 'phone', p.phone,
    'profileImageUrl', p.profile_image_url, 'visitCount', ${sql.ref(`${activity}.visit_count`)},
    'firstSeen', ${isoSql(`${activity}.first_seen`)}, 'lastSeen', ${isoSql(`${activity}.last_seen`)},
    'isHotLead', json(iif(p.is_hot_lead = 1, 'true', 'false')),
    'classifiedSeniority', p.classified_seniority, 'classifiedJobFunction', p.classified_job_function,
    'trafficType', p.traffic_type, 'adPlatform', p.ad_platform, 'companyData', ${company})`;
}

/** Completes a person's JSON from {@link personJsonSql} with the site the row is attributed to. */
export function withSite(json: string, site: Pick<Site, 'domain' | 'clientRef'>): string {
  return `${json.slice(0, -1)},"domain":${JSON.stringify(site.domain)},"clientRef":${JSON.stringify(site.clientRef)}}`;
}
