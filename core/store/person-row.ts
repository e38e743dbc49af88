import type { Person } from '../resources/types.ts';
import type { Site } from '../scope/view.ts';
import { isoSeconds } from '../time/iso.ts';
import type { Selectable } from 'kysely';
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
