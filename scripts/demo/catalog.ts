/**
 * The fixed vocabularies of the demo data. They are constants rather than faker output so
 * filter tests can name real values (an industry, a region) without generating data first.
 */

/** A client site of the demo partner, with the brand its page titles use. */
export interface CatalogSite {
  domain: string;
  clientRef: string | null;
  brand: string;
}

/**
 * The partner's client sites. acme-corp and globex each track a root domain and a subdomain;
 * badacme-example.com belongs to another client but ends with "acme-example.com", so naive
 * suffix matching would wrongly treat it as Acme's; the agency's own site has no clientRef.
 */
export const CATALOG_SITES: readonly CatalogSite[] = [
  { domain: 'acme-example.com', clientRef: 'acme-corp', brand: 'Acme' },
  { domain: 'shop.acme-example.com', clientRef: 'acme-corp', brand: 'Acme Shop' },
  { domain: 'badacme-example.com', clientRef: 'badacme-labs', brand: 'BadAcme Labs' },
  { domain: 'globex.example', clientRef: 'globex', brand: 'Globex' },
  { domain: 'docs.globex.example', clientRef: 'globex', brand: 'Globex Docs' },
  { domain: 'initech.test', clientRef: 'initech', brand: 'Initech' },
  { domain: 'umbrella-health.example', clientRef: 'umbrella-health', brand: 'Umbrella Health' },
  { domain: 'northwind-example.com', clientRef: 'northwind', brand: 'Northwind' },
  { domain: 'partner-agency.example', clientRef: null, brand: 'Partner Agency' },
];

export const INDUSTRIES = [
  'Software',
  'Financial Services',
  'Healthcare',
  'Manufacturing',
  'Retail',
  'Education',
  'Media',
  'Logistics',
  'Telecommunications',
  'Energy',
] as const;

export const REGIONS = ['North America', 'EMEA', 'APAC', 'LATAM'] as const;
export type Region = (typeof REGIONS)[number];

/** A real city, so locations read naturally; the dial code keeps phone numbers plausible. */
export interface Place {
  city: string;
  country: string;
  region: Region;
  dial: string;
}

export const PLACES: readonly Place[] = [
  { city: 'New York', country: 'United States', region: 'North America', dial: '+1' },
  { city: 'San Francisco', country: 'United States', region: 'North America', dial: '+1' },
  { city: 'Austin', country: 'United States', region: 'North America', dial: '+1' },
  { city: 'Chicago', country: 'United States', region: 'North America', dial: '+1' },
  { city: 'Boston', country: 'United States', region: 'North America', dial: '+1' },
  { city: 'Toronto', country: 'Canada', region: 'North America', dial: '+1' },
  { city: 'London', country: 'United Kingdom', region: 'EMEA', dial: '+44' },
  { city: 'Berlin', country: 'Germany', region: 'EMEA', dial: '+49' },
  { city: 'Paris', country: 'France', region: 'EMEA', dial: '+33' },
  { city: 'Amsterdam', country: 'Netherlands', region: 'EMEA', dial: '+31' },
  { city: 'Dublin', country: 'Ireland', region: 'EMEA', dial: '+353' },
  { city: 'Cape Town', country: 'South Africa', region: 'EMEA', dial: '+27' },
  { city: 'Sydney', country: 'Australia', region: 'APAC', dial: '+61' },
  { city: 'Singapore', country: 'Singapore', region: 'APAC', dial: '+65' },
  { city: 'Tokyo', country: 'Japan', region: 'APAC', dial: '+81' },
  { city: 'Bengaluru', country: 'India', region: 'APAC', dial: '+91' },
  { city: 'São Paulo', country: 'Brazil', region: 'LATAM', dial: '+55' },
  { city: 'Mexico City', country: 'Mexico', region: 'LATAM', dial: '+52' },
  { city: 'Buenos Aires', country: 'Argentina', region: 'LATAM', dial: '+54' },
  { city: 'Santiago', country: 'Chile', region: 'LATAM', dial: '+56' },
];

/** Weighted so North America dominates, as it does for most B2B sites. */
export const PLACE_WEIGHTS: readonly number[] = PLACES.map((p) =>
  p.region === 'North America' ? 5 : p.region === 'EMEA' ? 3 : p.region === 'APAC' ? 2 : 1,
);

export const SENIORITIES = ['Entry', 'Senior', 'Manager', 'Director', 'VP', 'C-Level'] as const;
export type Seniority = (typeof SENIORITIES)[number];
export const SENIORITY_WEIGHTS: readonly number[] = [20, 30, 22, 14, 9, 5];

export const JOB_FUNCTIONS = ['Engineering', 'Marketing', 'Sales', 'Finance', 'Operations', 'HR', 'Product', 'IT'] as const;
export type JobFunction = (typeof JOB_FUNCTIONS)[number];

/** The individual-contributor role of each function, for Entry and Senior titles. */
const ROLE: Record<JobFunction, string> = {
  Engineering: 'Software Engineer',
  Marketing: 'Marketing Specialist',
  Sales: 'Account Executive',
  Finance: 'Financial Analyst',
  Operations: 'Operations Analyst',
  HR: 'HR Generalist',
  Product: 'Product Manager',
  IT: 'Systems Administrator',
};

const CHIEF: Record<JobFunction, string> = {
  Engineering: 'Chief Technology Officer',
  Marketing: 'Chief Marketing Officer',
  Sales: 'Chief Revenue Officer',
  Finance: 'Chief Financial Officer',
  Operations: 'Chief Operating Officer',
  HR: 'Chief People Officer',
  Product: 'Chief Product Officer',
  IT: 'Chief Information Officer',
};

/** A job title that agrees with the classified seniority and function. */
export function titleFor(seniority: Seniority, fn: JobFunction): string {
  switch (seniority) {
    case 'Entry':
      return `Associate ${ROLE[fn]}`;
    case 'Senior':
      return `Senior ${ROLE[fn]}`;
    case 'Manager':
      return `${fn} Manager`;
    case 'Director':
      return `Director of ${fn}`;
    case 'VP':
      return `VP of ${fn}`;
    case 'C-Level':
      return CHIEF[fn];
  }
}

export const TRAFFIC_TYPES = ['organic', 'paid', 'direct', 'referral', 'social', 'email'] as const;
export const TRAFFIC_WEIGHTS: readonly number[] = [35, 20, 20, 10, 10, 5];
/** Only paid traffic names an ad platform. */
export const AD_PLATFORMS = ['google', 'linkedin', 'meta', 'bing'] as const;

/** Campaigns that brought paid, email and social visitors. */
export const CAMPAIGNS = ['spring-launch', 'webinar-q3', 'retargeting', 'abm-enterprise', 'newsletter-nov', 'partner-referral'] as const;

/** CRM states and their weights: most visitors are not in the CRM yet. */
export const CRM_WEIGHTS = [['not_in_crm', 65], ['in_crm', 25], ['customer', 10]] as const;

/** Domains reserved by RFC 2606, so no generated address can reach a real inbox. */
export const PERSONAL_EMAIL_DOMAINS = ['example.com', 'example.net', 'example.org'] as const;
