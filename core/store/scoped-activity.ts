import { sql, type AliasedRawBuilder, type RawBuilder } from 'kysely';
import type { SqlDialect } from './dialect/index.ts';

/**
 * SQL for a scoped key over several sites, and for an account key's people under a site filter.
 * Each owner is listed once, at its per-site row of latest visit (ties: the higher site key), so a
 * keyset walk never repeats or skips anyone; a page merges one index range scan per site.
 */

/** A per-site activity table and the names of its owner's columns. */
export interface Activity {
  table: 'person_sites' | 'company_sites';
  /** The owner's internal key. */
  owner: 'person_pk' | 'company_pk';
  /** The owner's public id, the list's tie-breaker. */
  id: 'person_id' | 'company_id';
  /** What a walk orders by: the owner's latest visit to the row's site, or (people) anywhere in the account. */
  sortedBy: 'last_seen' | 'person_last_seen';
  /** The column of the row's stored attribution (people), carried with each latest row so no page reads the row again for it. */
  attribution: 'json_site' | null;
  /**
   * How many sites the owner visited in all, where the table keeps it (people): the row of an
   * owner seen on one site alone is its latest among any sites and holds its figures there, so
   * neither needs looking up.
   */
  ownerSites: 'person_site_count' | null;
}

/** People's visits to sites. */
export const PERSON_ACTIVITY: Activity = { table: 'person_sites', owner: 'person_pk', id: 'person_id', sortedBy: 'last_seen', attribution: 'json_site', ownerSites: 'person_site_count' };
/**
 * People's visits to sites, walked in the order of each person's latest visit anywhere (a copy of
 * `people.last_seen` on each of their rows, indexed per site): an account key's list under a
 * site filter, which orders and shows people account-wide but attributes them among the sites.
 */
export const PERSON_ACTIVITY_ACCOUNT_WIDE: Activity = { ...PERSON_ACTIVITY, sortedBy: 'person_last_seen' };
/** Companies' activity on sites (their people's visits). */
export const COMPANY_ACTIVITY: Activity = { table: 'company_sites', owner: 'company_pk', id: 'company_id', sortedBy: 'last_seen', attribution: null, ownerSites: null };

/** An owner's latest row among the sites: who it is, where it sorts (`last_seen`: the walk's order) and the site it is attributed to. */
export interface LatestRow {
  owner_pk: number;
  id: string;
  last_seen: number;
  site_pk: number;
  /** The row's stored attribution, where the activity has one. */
  json_site: string | null;
  /** The row's own figures, and as stored text, where they are the owner's over any sites (its only row); else null. */
  sole_visit_count: number | null;
  sole_first_seen: number | null;
  sole_json_figures: string | null;
}

/** A latest row with the owner's figures over the sites. */
export interface ScopedFigures extends Omit<LatestRow, 'sole_visit_count' | 'sole_first_seen'> {
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

/** Whether the row aliased `a` is its owner's only row (false where the table does not know). */
function isSole(activity: Activity): RawBuilder<boolean> {
  return activity.ownerSites ? sql<boolean>`a.${sql.ref(activity.ownerSites)} = 1` : sql<boolean>`1 = 0`;
}

/** Whether the row aliased `a` is its owner's latest among the sites; an owner's only row is, with no lookup. */
function isLatest(activity: Activity, sitePks: readonly unknown[]): RawBuilder<boolean> {
  const owner = sql.ref(activity.owner);
  return sql<boolean>`(${isSole(activity)} or not exists (select 1 from ${sql.table(activity.table)} x where x.${owner} = a.${owner} and x.site_pk in (${sql.join(sitePks)}) and (x.last_seen, x.site_pk) > (a.last_seen, a.site_pk)))`;
}

/** The columns of a latest row, from the row aliased `a`. */
function latestColumns(activity: Activity): RawBuilder<LatestRow> {
  const attribution = activity.attribution ? sql.ref(`a.${activity.attribution}`) : sql`null`;
  const sole = (column: string) => sql`case when ${isSole(activity)} then a.${sql.ref(column)} end`;
  return sql<LatestRow>`a.${sql.ref(activity.owner)} as owner_pk, a.${sql.ref(activity.id)} as id, a.${sql.ref(activity.sortedBy)} as last_seen, a.site_pk, ${attribution} as json_site, ${sole('visit_count')} as sole_visit_count, ${sole('first_seen')} as sole_first_seen, ${sole('json_figures')} as sole_json_figures`;
}

/**
 * The latest rows of one page, the activity's order (`sortedBy`) descending then id descending:
 * one arm per site, each read in that order from the site's index, merged by a compound select
 * under the same order, which reads from each only the rows the page needs (SQLite's arms are
 * co-routines; Postgres's are limited to the page each, see the dialect's `mergesUnionArms`).
 */
export function latestPage(activity: Activity, page: LatestPage, dialect: SqlDialect): RawBuilder<LatestRow> {
  const id = sql.ref(activity.id);
  const sortedBy = sql.ref(activity.sortedBy);
  const arms = page.sitePks.map((sitePk, i) => {
    // Over one site every row is its owner's latest there.
    const latest = page.sitePks.length > 1 ? [isLatest(activity, page.sitePks)] : [];
    const conditions = [sql<boolean>`a.site_pk = ${sitePk}`, ...latest, ...page.conditions];
    if (page.after) conditions.push(sql<boolean>`(a.${sortedBy}, a.${id}) < (${page.after[0]}, ${page.after[1]})`);
    const arm = sql`select ${latestColumns(activity)} from ${sql.table(activity.table)} a where ${sql.join(conditions, sql` and `)}`;
    if (dialect.mergesUnionArms) return arm;
    return sql`select * from (${arm} order by a.${sortedBy} desc, a.${id} desc limit ${page.take}) ${sql.ref(`arm${i}`)}`;
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
 * row unless it is its owner's only one, as a table aliased `alias`.
 */
export function withFigures<A extends string>(activity: Activity, sitePks: readonly unknown[], latest: RawBuilder<LatestRow>, alias: A): AliasedRawBuilder<ScopedFigures, A> {
  const owned = sql`from ${sql.table(activity.table)} x where x.${sql.ref(activity.owner)} = k.owner_pk and x.site_pk in (${sql.join(sitePks)})`;
  return sql<ScopedFigures>`(select k.owner_pk, k.id, k.last_seen, k.site_pk, k.json_site, k.sole_json_figures, coalesce(k.sole_visit_count, (select sum(x.visit_count) ${owned})) as visit_count, coalesce(k.sole_first_seen, (select min(x.first_seen) ${owned})) as first_seen from (${latest}) k)`.as(alias);
}
