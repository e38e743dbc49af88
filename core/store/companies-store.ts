import { sql } from 'kysely';
import type { CursorPosition } from '../paging/cursor.ts';
import type { Company } from '../resources/types.ts';
import type { View } from '../scope/view.ts';
import { isoSeconds } from '../time/iso.ts';
import type { Db } from './schema.ts';

/** Filters of the companies list, already validated. */
export interface CompanyFilters {
  lastSeenAfter?: number;
}

interface RawCompany {
  id: string;
  name: string;
  domain: string | null;
  standardized_industry: string | null;
  location: string | null;
  region: string | null;
  linkedin_url: string | null;
  employee_count: number | null;
  visit_count: number;
  first_seen: number;
  last_seen: number;
  is_hot_company: number;
  traffic_type: string | null;
  ad_platform: string | null;
}

const PROFILE = [
  'c.id',
  'c.name',
  'c.domain',
  'c.standardized_industry',
  'c.location',
  'c.region',
  'c.linkedin_url',
  'c.employee_count',
  'c.is_hot_company',
  'c.traffic_type',
  'c.ad_platform',
] as const;

/** Reads companies in the shape of the API, within a view. */
export class CompaniesStore {
  constructor(private readonly db: Db) {}

  /** One page of companies, `lastSeen` descending then `id` descending. */
  async page(view: View, filters: CompanyFilters, after: CursorPosition | null, take: number) {
    if (view.kind === 'empty') return [];
    let raws: RawCompany[];
    if (view.kind === 'site') {
      let query = this.#siteQuery(view.site.pk);
      if (filters.lastSeenAfter !== undefined) query = query.where('cs.last_seen', '>', filters.lastSeenAfter);
      if (after) query = query.where(sql<boolean>`(cs.last_seen, cs.company_id) < (${after.sortValue}, ${after.id})`);
      raws = await query.orderBy('cs.last_seen', 'desc').orderBy('cs.company_id', 'desc').limit(take).execute();
    } else {
      let query = this.#accountQuery(view);
      if (filters.lastSeenAfter !== undefined) query = query.where('c.last_seen', '>', filters.lastSeenAfter);
      if (after) query = query.where(sql<boolean>`(c.last_seen, c.id) < (${after.sortValue}, ${after.id})`);
      raws = await query.orderBy('c.last_seen', 'desc').orderBy('c.id', 'desc').limit(take).execute();
    }
    return raws.map((raw) => ({ company: toCompany(raw), position: { sortValue: raw.last_seen, id: raw.id } }));
  }

  /** One company visible in the view, or undefined. */
  async get(view: View, id: string): Promise<Company | undefined> {
    if (view.kind === 'empty') return undefined;
    const raw =
      view.kind === 'site'
        ? await this.#siteQuery(view.site.pk).where('cs.company_id', '=', id).executeTakeFirst()
        : await this.#accountQuery(view).where('c.id', '=', id).executeTakeFirst();
    return raw && toCompany(raw);
  }

  #accountQuery(view: Extract<View, { kind: 'account' | 'sites' }>) {
    const query = this.db
      .selectFrom('companies as c')
      .select(PROFILE)
      .select(['c.visit_count', 'c.first_seen', 'c.last_seen'])
      .where('c.account_id', '=', view.accountId);
    if (view.kind === 'account') return query;
    const sitePks = view.sites.map((s) => s.pk);
    return query.where((eb) =>
      eb.exists(eb.selectFrom('company_sites as cs').select('cs.site_pk').whereRef('cs.company_pk', '=', 'c.pk').where('cs.site_pk', 'in', sitePks)),
    );
  }

  /** A scoped key's view: the company's activity on that one site only. */
  #siteQuery(sitePk: number) {
    return this.db
      .selectFrom('company_sites as cs')
      .innerJoin('companies as c', 'c.pk', 'cs.company_pk')
      .select(PROFILE)
      .select(['cs.visit_count', 'cs.first_seen', 'cs.last_seen'])
      .where('cs.site_pk', '=', sitePk);
  }
}

function toCompany(raw: RawCompany): Company {
  return {
    id: raw.id,
    name: raw.name,
    domain: raw.domain,
    standardizedIndustry: raw.standardized_industry,
    location: raw.location,
    region: raw.region,
    linkedinUrl: raw.linkedin_url,
    employeeCount: raw.employee_count,
    visitCount: raw.visit_count,
    firstSeen: isoSeconds(raw.first_seen),
    lastSeen: isoSeconds(raw.last_seen),
    isHotCompany: raw.is_hot_company === 1,
    trafficType: raw.traffic_type,
    adPlatform: raw.ad_platform,
  };
}
