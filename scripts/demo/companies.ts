import type { Faker } from '@faker-js/faker';
import type { CompanyInput } from '../../core/index.ts';
import { AD_PLATFORMS, INDUSTRIES, PLACE_WEIGHTS, PLACES, TRAFFIC_TYPES, TRAFFIC_WEIGHTS, type Place } from './catalog.ts';
import type { Rng } from './rng.ts';

/** A generated company, with the place people who work there tend to share. */
export interface DemoCompany {
  input: CompanyInput;
  place: Place;
  /** The domain of its employees' business email addresses. */
  emailDomain: string;
}

/** How many companies a run of `people` people gets: about one per eight, never fewer than 20. */
export function companyCount(people: number): number {
  return Math.max(20, Math.round(people / 8));
}

/** Generates `count` companies with unique ids, names and domains. */
export function generateCompanies(faker: Faker, rng: Rng, count: number): DemoCompany[] {
  const ids = new Set<string>();
  const names = new Set<string>();
  const domains = new Set<string>();
  const companies: DemoCompany[] = [];
  while (companies.length < count) {
    const name = faker.company.name();
    if (names.has(name)) continue;
    const id = uniqueId(faker, ids, 'com_');
    const slug = slugify(name);
    // Two companies may slugify alike ("Smith LLC", "Smith Inc"): number the later one.
    let domain = `${slug}.example`;
    for (let n = 2; domains.has(domain); n++) domain = `${slug}${n}.example`;
    names.add(name);
    domains.add(domain);
    const place = rng.weighted(PLACES.map((p, i) => [p, PLACE_WEIGHTS[i]!] as const));
    const trafficType = rng.weighted(TRAFFIC_TYPES.map((t, i) => [t, TRAFFIC_WEIGHTS[i]!] as const));
    companies.push({
      input: {
        id,
        name,
        domain,
        standardizedIndustry: rng.pick(INDUSTRIES),
        location: `${place.city}, ${place.country}`,
        region: place.region,
        linkedinUrl: `https://www.linkedin.com/company/${slug}`,
        employeeCount: logUniform(rng, 5, 50_000),
        isHotCompany: rng.chance(0.25),
        trafficType,
        adPlatform: trafficType === 'paid' ? rng.pick(AD_PLATFORMS) : null,
      },
      place,
      emailDomain: domain,
    });
  }
  return companies;
}

/** A `prefix` + 16 lowercase alphanumerics not yet in `taken` (which it joins). */
export function uniqueId(faker: Faker, taken: Set<string>, prefix: string): string {
  for (;;) {
    const id = prefix + faker.string.alphanumeric({ length: 16, casing: 'lower' });
    if (!taken.has(id)) {
      taken.add(id);
      return id;
    }
  }
}

/** Lowercase words joined by hyphens, without company-form noise like "and" or "LLC". */
export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9\s-]/g, '')
    .split(/[\s-]+/)
    .filter((w) => w && w !== 'and' && w !== 'llc' && w !== 'inc' && w !== 'group')
    .join('-') || 'company';
}

/** Sizes spread evenly over orders of magnitude, like real company headcounts. */
function logUniform(rng: Rng, min: number, max: number): number {
  return Math.round(Math.exp(Math.log(min) + rng.next() * (Math.log(max) - Math.log(min))));
}
