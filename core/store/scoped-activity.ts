import { sql, type AliasedRawBuilder, type RawBuilder } from 'kysely';

/**
 * SQL for a scoped key whose ceiling holds several sites (its domain and its subdomains): the
 * people or companies seen on any of them, with figures summed over them. The per-site tables
 * (`person_sites`, `company_sites`) hold one row per owner and site; an owner is listed at the
 * row of its latest visit among the sites (ties: the higher site key, as `latestVisitedOf`),
 * whose `last_seen` is the owner's maximum there. Every owner has exactly one such row, so a
 * keyset walk over those rows never repeats or skips anyone.
 *
 * A page merges one index range scan per site (`(site_pk, last_seen, id)`, walked backwards),
 * reading from each only as far as the page needs. Its cost
 * grows with the page size and the number of sites, not with the number of people in scope;
 * the exception is a site whose rows are mostly not their owner's latest (people seen more
 * recently on another of the sites), which its arm has to read past.
 */

/** A per-site activity table and the names of its owner's columns. */
export interface Activity {
  table: 'person_sites' | 'company_sites';
  /** The owner's internal key. */
  owner: 'person_pk' | 'company_pk';
  /** The owner's public id, the list's tie-breaker. */
  id: 'person_id' | 'company_id';
}

/** People's visits to sites. */
export const PERSON_ACTIVITY: Activity = { table: 'person_sites', owner: 'person_pk', id: 'person_id' };
/** Companies' activity on sites (their people's visits). */
export const COMPANY_ACTIVITY: Activity = { table: 'company_sites', owner: 'company_pk', id: 'company_id' };

/** An owner's latest row among the sites: who it is, where it sorts and the site it is attributed to. */
export interface LatestRow {
  owner_pk: number;
  id: string;
  last_seen: number;
  site_pk: number;
}

/** A latest row with the owner's figures over the sites. */
export interface ScopedFigures extends LatestRow {
  visit_count: number;
  first_seen: number;
}

/** One page of a keyset walk over the sites' latest rows. */
export interface LatestPage {
  /** The sites' keys (values or compile-time placeholders). */
  sitePks: readonly unknown[];
  /** Further conditions on the row aliased `a` (its owner's filters). */
  conditions: readonly RawBuilder<boolean>[];
  /** The position to continue after: `[last_seen, id]`. */
  after: readonly [unknown, unknown] | null;
  take: unknown;
}

/** Whether the row aliased `a` is its owner's latest among the sites. */
function isLatest(activity: Activity, sitePks: readonly unknown[]): RawBuilder<boolean> {
  const owner = sql.ref(activity.owner);
  return sql<boolean>`not exists (select 1 from ${sql.table(activity.table)} x where x.${owner} = a.${owner} and x.site_pk in (${sql.join(sitePks)}) and (x.last_seen, x.site_pk) > (a.last_seen, a.site_pk))`;
}

/** The columns of a latest row, from the row aliased `a`. */
function latestColumns(activity: Activity): RawBuilder<LatestRow> {
  return sql<LatestRow>`a.${sql.ref(activity.owner)} as owner_pk, a.${sql.ref(activity.id)} as id, a.last_seen, a.site_pk`;
}

/**
 * The latest rows of one page, `last_seen` descending then id descending: one arm per site, each
 * read in that order from the site's index, merged by a compound select under the same order.
 * The arms are co-routines, so the merge reads from each only the rows the page needs.
 */
export function latestPage(activity: Activity, page: LatestPage): RawBuilder<LatestRow> {
  const id = sql.ref(activity.id);
  const arms = page.sitePks.map((sitePk) => {
    const conditions = [sql<boolean>`a.site_pk = ${sitePk}`, isLatest(activity, page.sitePks), ...page.conditions];
    if (page.after) conditions.push(sql<boolean>`(a.last_seen, a.${id}) < (${page.after[0]}, ${page.after[1]})`);
    return sql`select ${latestColumns(activity)} from ${sql.table(activity.table)} a where ${sql.join(conditions, sql` and `)}`;
  });
  return sql<LatestRow>`${sql.join(arms, sql` union all `)} order by last_seen desc, id desc limit ${page.take}`;
}

/** The latest row among the sites of the one owner `ownerPk` (an expression), if any. */
export function latestOfOwner(activity: Activity, sitePks: readonly unknown[], ownerPk: RawBuilder<number>): RawBuilder<LatestRow> {
  return sql<LatestRow>`select ${latestColumns(activity)} from ${sql.table(activity.table)} a where a.${sql.ref(activity.owner)} = ${ownerPk} and a.site_pk in (${sql.join(sitePks)}) order by a.last_seen desc, a.site_pk desc limit 1`;
}

/**
 * Latest rows with their owners' visit count and first visit summed over the sites (the latest
 * row's `last_seen` is already the maximum), read by the table's `(owner, site)` key for each
 * row, as a table aliased `alias`.
 */
export function withFigures<A extends string>(activity: Activity, sitePks: readonly unknown[], latest: RawBuilder<LatestRow>, alias: A): AliasedRawBuilder<ScopedFigures, A> {
  const owned = sql`from ${sql.table(activity.table)} x where x.${sql.ref(activity.owner)} = k.owner_pk and x.site_pk in (${sql.join(sitePks)})`;
  return sql<ScopedFigures>`(select k.owner_pk, k.id, k.last_seen, k.site_pk, (select sum(x.visit_count) ${owned}) as visit_count, (select min(x.first_seen) ${owned}) as first_seen from (${latest}) k)`.as(alias);
}
