import type { Person } from '../resources/types.ts';
import type { Site } from '../scope/view.ts';
import { isoSeconds } from '../time/iso.ts';
import { sql, type RawBuilder, type Selectable } from 'kysely';
import type { PeopleTable } from './schema.ts';

/** A person row as the people queries select it: the person's columns, their company's, and their attributed site. */
export type RawPerson = Omit<Selectable<PeopleTable>, 'account_id' | 'company_pk' | 'last_site_pk' | 'campaign' | 'crm_status'> & {
  c_id: string | null;
  c_name: string | null;
  c_domain: string | null;
  c_industry: string | null;
  c_location: string | null;
  c_employees: number | null;
  site_pk: number;
  /** Only in the account-wide view, where the attribution comes from a join. */
  site_domain?: string;
  site_client_ref?: string | null;
};

/** Person columns that read the same in every view; activity columns depend on the view. */
export const PERSON_PROFILE = [
  'p.pk',
  'p.id',
  'p.email',
  'p.business_email',
  'p.personal_email',
  'p.first_name',
  'p.last_name',
  'p.title',
  'p.company',
  'p.location',
  'p.region',
  'p.linkedin_url',
  'p.phone',
  'p.profile_image_url',
  'p.is_hot_lead',
  'p.classified_seniority',
  'p.classified_job_function',
  'p.traffic_type',
  'p.ad_platform',
  'c.id as c_id',
  'c.name as c_name',
  'c.domain as c_domain',
  'c.standardized_industry as c_industry',
  'c.location as c_location',
  'c.employee_count as c_employees',
] as const;

/** A person row in the shape of the API, attributed to `site`. */
export function toPerson(raw: RawPerson, site: Site): Person {
  return {
    id: raw.id,
    email: raw.email,
    businessEmail: raw.business_email,
    personalEmail: raw.personal_email,
    firstName: raw.first_name,
    lastName: raw.last_name,
    title: raw.title,
    company: raw.company,
    location: raw.location,
    region: raw.region,
    linkedinUrl: raw.linkedin_url,
    phone: raw.phone,
    profileImageUrl: raw.profile_image_url,
    visitCount: raw.visit_count,
    firstSeen: isoSeconds(raw.first_seen),
    lastSeen: isoSeconds(raw.last_seen),
    isHotLead: raw.is_hot_lead === 1,
    classifiedSeniority: raw.classified_seniority,
    classifiedJobFunction: raw.classified_job_function,
    trafficType: raw.traffic_type,
    adPlatform: raw.ad_platform,
    companyData:
      raw.c_id === null
        ? null
        : {
            companyId: raw.c_id,
            name: raw.c_name!,
            domain: raw.c_domain,
            standardizedIndustry: raw.c_industry,
            location: raw.c_location,
            employeeCount: raw.c_employees,
          },
    domain: site.domain,
    clientRef: site.clientRef,
  };
}

/** Epoch seconds as SQLite renders them in the format of {@link isoSeconds}. */
function isoSql(column: string): RawBuilder<string> {
  return sql<string>`strftime('%Y-%m-%dT%H:%M:%SZ', ${sql.ref(column)}, 'unixepoch')`;
}

/**
 * The object {@link toPerson} builds, as JSON text built by SQLite, without the attribution
 * fields (`domain`, `clientRef`: see {@link withSite}). A list page is mostly the cost of turning
 * 31 columns a row into JS values and back into text; SQLite writes the text directly, in
 * less than half the time. `activity` is the table alias whose visit count and first/last
 * seen the view reports (`p` account-wide, `ps` for one site). The export test that parses
 * the CSV back and compares it with the list endpoint keeps the two renderings equal.
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
export function withSite(json: string, site: Site): string {
  return `${json.slice(0, -1)},"domain":${JSON.stringify(site.domain)},"clientRef":${JSON.stringify(site.clientRef)}}`;
}
