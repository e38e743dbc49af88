import { sql, type AliasedRawBuilder, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import type { CursorPosition } from '../paging/cursor.ts';
import type { PersonSummary } from '../resources/types.ts';
import { accountPersonJsonSql, figuresJsonSql, storedPersonJsonSql } from './person-row.ts';
import type { View } from '../scope/view.ts';
import { CompiledQueries, type Param } from './compiled-queries.ts';
import { isOneSite, isScopedSites, peoplePageValues, sitePlaceholders, viewShape, viewValues, type VisibleView } from './view-params.ts';
import { latestOfOwner, latestPage, PERSON_ACTIVITY, PERSON_ACTIVITY_ACCOUNT_WIDE, withFigures, type LatestRow, type ScopedFigures } from './scoped-activity.ts';
import { latestVisitedOf, visitedAnyOf } from './site-visits.ts';
import type { Database, Db } from './schema.ts';
import { canNameStoredText, dialectOf, type SqlDialect } from './dialect/index.ts';

/** Filters of the people list, already validated. */
export interface PeopleFilters {
  lastSeenAfter?: number;
  hotLeadsOnly?: boolean;
}

/** A person of a page: their JSON as the API returns it, and their position for a cursor. */
export interface PersonRow {
  json: string;
  position: CursorPosition;
}

/** What the people queries select: the person's JSON, attribution included, and its sort key. */
interface PersonJsonRow {
  json: string;
  id: string;
  last_seen: number;
}

/** Reads people in the shape of the API, within a view. Queries are compiled once per shape. */
export class PeopleStore {
  readonly #queries: CompiledQueries;
  readonly #dialect: SqlDialect;

  constructor(private readonly db: Db) {
    this.#queries = new CompiledQueries(db);
    this.#dialect = dialectOf(db);
  }

  /**
   * Up to `take` people, `lastSeen` descending then `id` descending, after `after` when given:
   * one keyset query per view, each person's JSON joined from its stored pieces.
   */
  async page(view: View, filters: PeopleFilters, after: CursorPosition | null, take: number): Promise<PersonRow[]> {
    if (view.kind === 'empty') return [];
    const hot = filters.hotLeadsOnly === true;
    const since = filters.lastSeenAfter;
    const values: Record<string, unknown> = { ...peoplePageValues(view), take };
    if (since !== undefined) values.since = since;
    if (after) Object.assign(values, { afterTs: after.sortValue, afterId: after.id });
    const rows = await this.#queries.rows(
      `page:${viewShape(view)}:${hot}:${since !== undefined}:${after !== null}`,
      (p) => {
        if (isScopedSites(view)) return this.#scopedPage(p, view, hot, since !== undefined, after !== null);
        if (view.kind === 'sites') return this.#filteredPage(p, view, hot, since !== undefined, after !== null);
        return this.#plainPage(p, view, hot, since !== undefined, after !== null);
      },
      values,
    );
    return rows.map((row) => ({ json: row.json, position: { sortValue: row.last_seen, id: row.id } }));
  }

  /**
   * The people of the account view or of one site, filtered and in page order: one table
   * answers activity and order (people account-wide, person_sites for one site).
   */
  #plainPage(p: Param, view: VisibleView, hot: boolean, since: boolean, after: boolean): PeopleQuery {
    const [lastSeen, id] = isOneSite(view) ? [sql.ref('ps.last_seen'), sql.ref('ps.person_id')] : [sql.ref('p.last_seen'), sql.ref('p.id')];
    let query = this.#viewQuery(p, view);
    // One site's hot leads have an index of their own, which the literal 1 lets the planner use.
    if (hot) query = isOneSite(view) ? query.where(sql<boolean>`ps.person_is_hot_lead = 1`) : query.where(sql.ref('p.is_hot_lead'), '=', 1);
    if (since) query = query.where(lastSeen, '>', p('since'));
    if (after) query = query.where(sql<boolean>`(${lastSeen}, ${id}) < (${p('afterTs')}, ${p('afterId')})`);
    return query.orderBy(lastSeen, 'desc').orderBy(id, 'desc').limit(p('take'));
  }

  /** One person visible in the view, as JSON text, or undefined. */
  async get(view: View, id: string): Promise<string | undefined> {
    if (view.kind === 'empty' || !canNameStoredText(id)) return undefined;
    const values = { ...viewValues(view), id, ...(isScopedSites(view) ? { accountId: view.accountId } : {}) };
    const [row] = await this.#queries.rows(
      `get:${viewShape(view)}`,
      (p) => {
        if (isScopedSites(view)) {
          const sitePks = sitePlaceholders(view, p);
          const person = sql<number>`(select pk from ${sql.table('people')} where account_id = ${p('accountId')} and id = ${p('id')})`;
          return this.#scopedPeople(withFigures(PERSON_ACTIVITY, sitePks, latestOfOwner(PERSON_ACTIVITY, sitePks, person), 'ps'));
        }
        return this.#viewQuery(p, view).where(sql.ref(isOneSite(view) ? 'ps.person_id' : 'p.id'), '=', p('id'));
      },
      values,
    );
    return row?.json;
  }

  /** The summary of a person visible in the view. */
  async summary(view: View, id: string): Promise<PersonSummary | undefined> {
    if (!canNameStoredText(id)) return undefined;
    const sites = view.kind === 'scoped' ? view.sites : [];
    const values: Record<string, unknown> = { accountId: view.accountId, id };
    sites.forEach((site, i) => (values[`site${i}`] = site.pk));
    const [r] = await this.#queries.rows(
      `summary:${sites.length}`,
      (p) => {
        let query = this.db
          .selectFrom('people as p')
          .select(['p.id', 'p.first_name', 'p.last_name', 'p.email', 'p.company'])
          .where('p.account_id', '=', p('accountId'))
          .where('p.id', '=', p('id'));
        if (sites.length > 0) query = query.where(visitedAnyOf(sites.map((_, i) => p(`site${i}`))));
        return query;
      },
      values,
    );
    return r && { id: r.id, firstName: r.first_name, lastName: r.last_name, email: r.email, company: r.company };
  }

  /**
   * One page of a scoped key's people over several sites: their latest rows there, merged from
   * one index range per site (see scoped-activity.ts), with figures summed over the sites.
   */
  #scopedPage(p: Param, view: VisibleView, hot: boolean, since: boolean, after: boolean): PeopleQuery {
    const sitePks = sitePlaceholders(view, p);
    const conditions: RawBuilder<boolean>[] = [];
    if (hot) conditions.push(HOT_ROW);
    if (since) conditions.push(sql<boolean>`a.last_seen > ${p('since')}`);
    const latest = latestPage(PERSON_ACTIVITY, { sitePks, conditions, after: after ? [p('afterTs'), p('afterId')] : null, take: p('take') }, this.#dialect);
    // The page is chosen before any person is written as JSON; sorting its few rows again is cheap.
    return this.#scopedPeople(withFigures(PERSON_ACTIVITY, sitePks, latest, 'ps')).orderBy(sql.ref('ps.last_seen'), 'desc').orderBy(sql.ref('ps.id'), 'desc');
  }

  /**
   * One page of an account key's people under a site filter: ordered by their latest visit
   * anywhere, as the account list is, but merged from the selected sites' index ranges (each
   * person listed at the row of its latest visit among them, which is also its attribution), so
   * the walk reads no one seen only elsewhere. Figures stay account-wide.
   */
  #filteredPage(p: Param, view: VisibleView, hot: boolean, since: boolean, after: boolean): PeopleQuery {
    const conditions: RawBuilder<boolean>[] = [];
    if (hot) conditions.push(HOT_ROW);
    if (since) conditions.push(sql<boolean>`a.person_last_seen > ${p('since')}`);
    const latest = latestPage(PERSON_ACTIVITY_ACCOUNT_WIDE, {
      sitePks: sitePlaceholders(view, p),
      conditions,
      after: after ? [p('afterTs'), p('afterId')] : null,
      take: p('take'),
    }, this.#dialect);
    return this.db
      .selectFrom(sql<LatestRow>`(${latest})`.as('k'))
      .innerJoin('people as p', 'p.pk', 'k.owner_pk')
      .select([storedPersonJsonSql(sql`p.json_figures`, sql`k.json_site`).as('json'), 'k.id', 'k.last_seen'])
      .orderBy(sql.ref('k.last_seen'), 'desc')
      .orderBy(sql.ref('k.id'), 'desc')
      .$castTo<PersonJsonRow>() as unknown as PeopleQuery;
  }

  /**
   * People of a scoped key's several sites, from their latest rows and figures there (aliased
   * `ps`): the only view whose figures are not all stored, so those of people seen on more than
   * one site are written here, between the person's stored head and tail, with the attribution of
   * the latest row's site.
   */
  #scopedPeople(figures: AliasedRawBuilder<ScopedFigures, 'ps'>): PeopleQuery {
    return this.db
      .selectFrom(figures)
      .innerJoin('people as p', 'p.pk', 'ps.owner_pk')
      .select([storedPersonJsonSql(sql`coalesce(ps.sole_json_figures, ${figuresJsonSql('ps', this.#dialect)})`, sql`ps.json_site`).as('json'), 'ps.id', 'ps.last_seen'])
      .$castTo<PersonJsonRow>() as unknown as PeopleQuery;
  }

  /**
   * People in the view with their stored JSON (person-row.ts) and sort key, for every view but a
   * scoped key's several sites. The views read different tables, so callers refine through `sql.ref`.
   */
  #viewQuery(p: Param, view: VisibleView): PeopleQuery {
    if (isOneSite(view)) {
      return this.db
        .selectFrom('person_sites as ps')
        .innerJoin('people as p', 'p.pk', 'ps.person_pk')
        .select([storedPersonJsonSql(sql`ps.json_figures`, sql`ps.json_site`).as('json'), 'ps.person_id as id', 'ps.last_seen'])
        .where('ps.site_pk', '=', p('sitePk'))
        .$castTo<PersonJsonRow>() as unknown as PeopleQuery;
    }
    const query = this.db.selectFrom('people as p').select(['p.id', 'p.last_seen']).where('p.account_id', '=', p('accountId'));
    if (view.kind === 'account') return query.select(accountPersonJsonSql().as('json')).$castTo<PersonJsonRow>() as unknown as PeopleQuery;
    // Account-wide figures, attributed to the latest of the selected sites.
    const sitePks = sitePlaceholders(view, p);
    return query
      .select(storedPersonJsonSql(sql`p.json_figures`, latestSiteJsonOf(sitePks)).as('json'))
      .where(visitedAnyOf(sitePks))
      .$castTo<PersonJsonRow>() as unknown as PeopleQuery;
  }
}

/** A `person_sites` row (aliased `a`) of a hot lead: a literal 1, so the hot leads' own indexes apply. */
const HOT_ROW = sql<boolean>`a.person_is_hot_lead = 1`;

/** A people query of any view, seen only through its result row. */
type PeopleQuery = SelectQueryBuilder<Database, keyof Database, PersonJsonRow>;

/**
 * The stored attribution of the person `p`'s most recently visited site among `sitePks`: the
 * site found by its recency index alone (`latestVisitedOf`), then its row by key.
 */
function latestSiteJsonOf(sitePks: readonly unknown[]): RawBuilder<string> {
  return sql<string>`(select a.json_site from ${sql.table('person_sites')} a where a.person_pk = p.pk and a.site_pk = ${latestVisitedOf(sitePks)})`;
}
