import { sql, type AliasedRawBuilder, type SelectQueryBuilder } from 'kysely';
import type { CursorPosition } from '../paging/cursor.ts';
import type { View } from '../scope/view.ts';
import { CompiledQueries, type Param } from './compiled-queries.ts';
import { isOneSite, isScopedSites, sitePlaceholders, viewShape, viewValues, type VisibleView } from './view-params.ts';
import { COMPANY_ACTIVITY, latestOfOwner, latestPage, withFigures, type ScopedFigures } from './scoped-activity.ts';
import { canNameStoredText, dialectOf, type SqlDialect } from './dialect/index.ts';
import { companyFiguresJsonSql, storedCompanyJsonSql } from './company-row.ts';
import type { Database, Db } from './schema.ts';

/** Filters of the companies list, already validated. */
export interface CompanyFilters {
  lastSeenAfter?: number;
}

/** A company as the API returns it, as JSON text, plus its position in the list. */
export interface CompanyRow {
  json: string;
  position: CursorPosition;
}

/** What the companies queries select: the company's JSON and its sort key. */
interface CompanyJsonRow {
  json: string;
  id: string;
  last_seen: number;
}

/** Reads companies in the shape of the API, within a view. Queries are compiled once per shape. */
export class CompaniesStore {
  readonly #queries: CompiledQueries;
  readonly #dialect: SqlDialect;

  constructor(private readonly db: Db) {
    this.#queries = new CompiledQueries(db);
    this.#dialect = dialectOf(db);
  }

  /** One page of companies, `lastSeen` descending then `id` descending, after `after` when given. */
  async page(view: View, filters: CompanyFilters, after: CursorPosition | null, take: number): Promise<CompanyRow[]> {
    if (view.kind === 'empty') return [];
    const since = filters.lastSeenAfter;
    const values: Record<string, unknown> = { ...viewValues(view), take };
    if (since !== undefined) values.since = since;
    if (after) Object.assign(values, { afterTs: after.sortValue, afterId: after.id });
    const rows = await this.#queries.rows(
      `page:${viewShape(view)}:${since !== undefined}:${after !== null}`,
      (p) => {
        if (isScopedSites(view)) return this.#scopedPage(p, view, since !== undefined, after !== null);
        // One table answers activity and order: companies account-wide, company_sites for one site.
        const [lastSeen, id] = isOneSite(view) ? [sql.ref('cs.last_seen'), sql.ref('cs.company_id')] : [sql.ref('c.last_seen'), sql.ref('c.id')];
        let query = this.#viewQuery(p, view);
        if (since !== undefined) query = query.where(lastSeen, '>', p('since'));
        if (after) query = query.where(sql<boolean>`(${lastSeen}, ${id}) < (${p('afterTs')}, ${p('afterId')})`);
        return query.orderBy(lastSeen, 'desc').orderBy(id, 'desc').limit(p('take'));
      },
      values,
    );
    return rows.map((row) => ({ json: row.json, position: { sortValue: row.last_seen, id: row.id } }));
  }

  /** One company visible in the view, as JSON text, or undefined. */
  async get(view: View, id: string): Promise<string | undefined> {
    if (view.kind === 'empty' || !canNameStoredText(id)) return undefined;
    const values = { ...viewValues(view), id, ...(isScopedSites(view) ? { accountId: view.accountId } : {}) };
    const [row] = await this.#queries.rows(
      `get:${viewShape(view)}`,
      (p) => {
        if (isScopedSites(view)) {
          const sitePks = sitePlaceholders(view, p);
          const company = sql<number>`(select pk from ${sql.table('companies')} where account_id = ${p('accountId')} and id = ${p('id')})`;
          return this.#scopedCompanies(withFigures(COMPANY_ACTIVITY, sitePks, latestOfOwner(COMPANY_ACTIVITY, sitePks, company), 'cs'));
        }
        return this.#viewQuery(p, view).where(sql.ref(isOneSite(view) ? 'cs.company_id' : 'c.id'), '=', p('id'));
      },
      values,
    );
    return row?.json;
  }

  /**
   * One page of a scoped key's companies over several sites: their latest rows there, merged from
   * one index range per site (see scoped-activity.ts), with figures summed over the sites.
   */
  #scopedPage(p: Param, view: VisibleView, since: boolean, after: boolean): CompaniesQuery {
    const sitePks = sitePlaceholders(view, p);
    const conditions = since ? [sql<boolean>`a.last_seen > ${p('since')}`] : [];
    const latest = latestPage(COMPANY_ACTIVITY, { sitePks, conditions, after: after ? [p('afterTs'), p('afterId')] : null, take: p('take') }, this.#dialect);
    // The page is chosen before any company is written as JSON; sorting its few rows again is cheap.
    return this.#scopedCompanies(withFigures(COMPANY_ACTIVITY, sitePks, latest, 'cs')).orderBy(sql.ref('cs.last_seen'), 'desc').orderBy(sql.ref('cs.id'), 'desc');
  }

  /**
   * Companies of a scoped key's several sites, from their latest rows and figures there (aliased
   * `cs`): the only view whose figures are not stored, so they are written here.
   */
  #scopedCompanies(figures: AliasedRawBuilder<ScopedFigures, 'cs'>): CompaniesQuery {
    return this.db
      .selectFrom(figures)
      .innerJoin('companies as c', 'c.pk', 'cs.owner_pk')
      .select([storedCompanyJsonSql(companyFiguresJsonSql('cs', this.#dialect)).as('json'), 'cs.id', 'cs.last_seen'])
      .$castTo<CompanyJsonRow>() as unknown as CompaniesQuery;
  }

  /**
   * Companies in the view with their JSON (stored text, see company-row.ts) and sort key, for
   * every view but a scoped key's several sites; a scoped key sees only its site's activity. The
   * views join different tables, so callers refine it through `sql.ref`.
   */
  #viewQuery(p: Param, view: VisibleView): CompaniesQuery {
    if (isOneSite(view)) {
      return this.db
        .selectFrom('company_sites as cs')
        .innerJoin('companies as c', 'c.pk', 'cs.company_pk')
        .select([storedCompanyJsonSql(sql`cs.json_figures`).as('json'), 'cs.company_id as id', 'cs.last_seen'])
        .where('cs.site_pk', '=', p('sitePk'))
        .$castTo<CompanyJsonRow>() as unknown as CompaniesQuery;
    }
    const query = this.db
      .selectFrom('companies as c')
      .select([storedCompanyJsonSql(sql`c.json_figures`).as('json'), 'c.id', 'c.last_seen'])
      .where('c.account_id', '=', p('accountId'));
    if (view.kind === 'account') return query.$castTo<CompanyJsonRow>() as unknown as CompaniesQuery;
    const sitePks = sitePlaceholders(view, p);
    return query
      .where((eb) => eb.exists(eb.selectFrom('company_sites as cs').select('cs.site_pk').whereRef('cs.company_pk', '=', 'c.pk').where('cs.site_pk', 'in', sitePks)))
      .$castTo<CompanyJsonRow>() as unknown as CompaniesQuery;
  }
}

/** A companies query of any view, seen only through its result row. */
type CompaniesQuery = SelectQueryBuilder<Database, keyof Database, CompanyJsonRow>;
