import type { Faker } from '@faker-js/faker';
import type { PersonInput } from '../../core/index.ts';
import {
  AD_PLATFORMS,
  CAMPAIGNS,
  CRM_WEIGHTS,
  JOB_FUNCTIONS,
  PERSONAL_EMAIL_DOMAINS,
  PLACE_WEIGHTS,
  PLACES,
  SENIORITIES,
  SENIORITY_WEIGHTS,
  TRAFFIC_TYPES,
  TRAFFIC_WEIGHTS,
  titleFor,
} from './catalog.ts';
import { uniqueId, type DemoCompany } from './companies.ts';
import { isoSeconds } from './journeys.ts';
import type { Rng } from './rng.ts';
import type { VisitPlan } from './visits.ts';

/** Index of the person who never has a company, so even tiny runs have one. */
export const ALWAYS_WITHOUT_COMPANY = 2;

/** Profile fields an incomplete profile may lack. */
const OPTIONAL_FIELDS = [
  'phone',
  'linkedinUrl',
  'personalEmail',
  'title',
  'location',
  'region',
  'profileImageUrl',
  'classifiedSeniority',
  'classifiedJobFunction',
] as const;

/** Generates one person per visit plan; about 12% lack a company and 30% have gaps in their profile. */
export function generatePeople(faker: Faker, rng: Rng, companies: DemoCompany[], plans: VisitPlan[][]): PersonInput[] {
  const ids = new Set<string>();
  const emails = new Set<string>();
  return plans.map((visits, i) => {
    const id = uniqueId(faker, ids, 'per_');
    const firstName = faker.person.firstName();
    const lastName = faker.person.lastName();
    // Squaring skews people towards the first companies, so some companies have many visitors.
    // The first person always has one, as part of the complete profile a test can rely on.
    const noCompany = i === ALWAYS_WITHOUT_COMPANY || (i !== 0 && rng.chance(0.12));
    const company = noCompany ? null : companies[Math.floor(rng.next() ** 2 * companies.length)]!;
    const seniority = rng.weighted(SENIORITIES.map((s, k) => [s, SENIORITY_WEIGHTS[k]!] as const));
    const jobFunction = rng.pick(JOB_FUNCTIONS);
    const place = company && rng.chance(0.7) ? company.place : rng.weighted(PLACES.map((p, k) => [p, PLACE_WEIGHTS[k]!] as const));
    const first = ascii(firstName);
    const last = ascii(lastName);
    const businessEmail = company ? unique(emails, `${first}.${last}`, `@${company.emailDomain}`) : null;
    const personalEmail = unique(emails, `${first}${last}${rng.int(1, 99)}`, `@${rng.pick(PERSONAL_EMAIL_DOMAINS)}`);
    const trafficType = rng.weighted(TRAFFIC_TYPES.map((t, k) => [t, TRAFFIC_WEIGHTS[k]!] as const));
    const person: PersonInput = {
      id,
      email: businessEmail ?? personalEmail,
      businessEmail,
      personalEmail,
      firstName,
      lastName,
      title: titleFor(seniority, jobFunction),
      company: company?.input.name ?? null,
      location: `${place.city}, ${place.country}`,
      region: place.region,
      linkedinUrl: `https://www.linkedin.com/in/${first}-${last}-${faker.string.alphanumeric({ length: 6, casing: 'lower' })}`,
      phone: `${place.dial} ${faker.string.numeric({ length: 3, allowLeadingZeros: false })} ${faker.string.numeric(3)} ${faker.string.numeric(4)}`,
      profileImageUrl: `https://avatars.example/${id.slice(4)}.jpg`,
      isHotLead: rng.chance(0.2),
      classifiedSeniority: seniority,
      classifiedJobFunction: jobFunction,
      trafficType,
      adPlatform: trafficType === 'paid' ? rng.pick(AD_PLATFORMS) : null,
      companyId: company?.input.id ?? null,
      visits: visits.map((v) => ({
        domain: v.site.domain,
        visitCount: v.visitCount,
        firstSeen: isoSeconds(v.firstSeen),
        lastSeen: isoSeconds(v.lastSeen),
      })),
    };
    // Campaigns bring paid, email and social traffic; the CRM knows about a third of visitors.
    person.campaign = ['paid', 'email', 'social'].includes(trafficType) ? rng.pick(CAMPAIGNS) : null;
    person.crmStatus = rng.weighted(CRM_WEIGHTS);
    if (i !== 0 && rng.chance(0.3)) dropFields(rng, person);
    return person;
  });
}

/** Blanks two to five optional fields; a person left with no address keeps no `email` either. */
function dropFields(rng: Rng, person: PersonInput): void {
  const count = rng.int(2, 5);
  const fields = [...OPTIONAL_FIELDS];
  for (let k = 0; k < count; k++) {
    const [field] = fields.splice(rng.int(0, fields.length - 1), 1);
    person[field!] = null;
  }
  person.email = person.businessEmail ?? person.personalEmail ?? null;
}

/** Lowercase ASCII letters only: what a mail server would accept from a name like "D'Amore". */
function ascii(name: string): string {
  return name.normalize('NFKD').toLowerCase().replace(/[^a-z]/g, '') || 'user';
}

/** `local + domain`, numbered when two people would share an address. */
function unique(taken: Set<string>, local: string, domain: string): string {
  let address = local + domain;
  for (let n = 2; taken.has(address); n++) address = `${local}${n}${domain}`;
  taken.add(address);
  return address;
}
