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
import { latin1DecoderOf, wholeText, type Latin1Decoder } from './whole-people.ts';

/** Filters of the people list, already validated. */
export interface PeopleFilters {
  lastSeenAfter?: number;
  hotLeadsOnly?: boolean;
}

/**
 * A page of people: its JSON as pieces to join with commas, each piece one person as the API
 * returns them (or several, joined already), as text or its UTF-8 bytes (as the dialect reads a body).
 */
export interface PeoplePage {
  items: { json: string | Uint8Array }[];
  /** How many people the pieces hold. */
  count: number;
  /** The last person's position when more people follow; null on the last page. */
  next: CursorPosition | null;
}

/** What the people queries select: the person's JSON, attribution included, and its sort key. */
interface PersonJsonRow {
  json: string | Uint8Array;
  id: string;
  last_seen: number;
}

/** Reads people in the shape of the API, within a view. Queries are compiled once per shape. */
export class PeopleStore {
  readonly #queries: CompiledQueries;
  readonly #dialect: SqlDialect;
  readonly #latin1: Latin1Decoder;

  constructor(private readonly db: Db) {
    this.#queries = new CompiledQueries(db);
    this.#dialect = dialectOf(db);
    this.#latin1 = latin1DecoderOf(db);
  }

  /** A person's JSON as `read` asks for it. */
  #json(text: RawBuilder<string>, read: JsonRead): RawBuilder<string | Uint8Array> {
    return read === 'body' ? this.#dialect.bodyJson(text) : text;
  }

  /** One page of `limit` people, `lastSeen` descending then `id` descending, after `after` when given. */
  async page(view: View, filters: PeopleFilters, after: CursorPosition | null, limit: number): Promise<PeoplePage> {
    if (view.kind === 'empty') return { items: [], count: 0, next: null };
    const hot = filters.hotLeadsOnly === true;
    const since = filters.lastSeenAfter;
    const values: Record<string, unknown> = { ...peoplePageValues(view), ...(after ? { afterTs: after.sortValue, afterId: after.id } : {}) };
    if (since !== undefined) values.since = since;
    const shape = `${viewShape(view)}:${hot}:${since !== undefined}:${after !== null}`;
    if (view.kind === 'account' && !hot && this.#dialect.storesWholePeople) {
      const rows = await this.#queries.rows(`whole:${shape}`, (p) => this.#wholePage(p, view, since !== undefined, after !== null), { ...values, limit, lastIndex: limit - 1 });
      return pageOfWholeRows(rows, limit, this.#latin1);
    }
    const plain = !isScopedSites(view) && view.kind !== 'sites';
    if (plain && this.#dialect.readsPositionsApart) {
      const rows = await this.#queries.rows(`apart:${shape}`, (p) => this.#pageApart(p, view, hot, since !== undefined, after !== null), { ...values, limit, lastIndex: limit - 1 });
      return pageOfApartRows(rows, limit);
    }
    const rows = await this.#queries.rows(
      `page:${shape}`,
      (p) => {
        if (isScopedSites(view)) return this.#scopedPage(p, view, hot, since !== undefined, after !== null);
        if (view.kind === 'sites') return this.#filteredPage(p, view, hot, since !== undefined, after !== null);
        return this.#plainPage(p, view, hot, since !== undefined, after !== null).limit(p('take'));
      },
      { ...values, take: limit + 1 },
    );
    const items = rows.slice(0, limit);
    const last = items[items.length - 1];
    return { items, count: items.length, next: rows.length > limit && last ? { sortValue: last.last_seen, id: last.id } : null };
  }

  /**
   * The people of the account view or of one site, filtered and in page order: one table
   * answers activity and order (people account-wide, person_sites for one site).
   */
  #plainPage(p: Param, view: VisibleView, hot: boolean, since: boolean, after: boolean): PeopleQuery {
    const [lastSeen, id] = plainOrder(view);
    let query = this.#viewQuery(p, view, AS_BODY, !hot);
    // One site's hot leads have an index of their own, which the literal 1 lets the planner use.
    if (hot) query = isOneSite(view) ? query.where(sql<boolean>`ps.person_is_hot_lead = 1`) : query.where(sql.ref('p.is_hot_lead'), '=', 1);
    if (since) query = query.where(lastSeen, '>', p('since'));
    if (after) query = query.where(sql<boolean>`(${lastSeen}, ${id}) < (${p('afterTs')}, ${p('afterId')})`);
    return query.orderBy(lastSeen, 'desc').orderBy(id, 'desc');
  }

  /**
   * {@link #plainPage} as the dialect reads it fastest (`readsPositionsApart`): the page's JSON
   * alone, a row each, then the positions of its last person and of the one after it, if any,
   * each as a JSON array `[last_seen, id]`, read from the index alone.
   */
  #pageApart(p: Param, view: VisibleView, hot: boolean, since: boolean, after: boolean) {
    const ordered = this.#plainPage(p, view, hot, since, after);
    const bodies = this.db.selectFrom(ordered.limit(p('limit')).as('page')).select('page.json');
    const tail = this.db.selectFrom(lastPositions(p, view, ordered).as('tail')).select(this.#dialect.jsonArray([sql.ref('tail.last_seen'), sql.ref('tail.id')]).as('json'));
    return bodies.unionAll(tail);
  }

  /**
   * {@link #plainPage} of the account view by `lastSeen` alone, from its people's JSON filed in
   * page order as bytes (whole-people.ts): one row of the page's people joined into one blob by
   * SQLite, with their count, then the positions of its last person and of the one after it, if
   * any, read from the index alone.
   */
  #wholePage(p: Param, view: VisibleView, since: boolean, after: boolean) {
    const ordered = this.#plainPage(p, view, false, since, after);
    const joined = this.#dialect.orderedConcat(sql.ref('page.json'), ',', sql`last_seen desc, id desc`);
    const people = this.db
      .selectFrom(ordered.limit(p('limit')).as('page'))
      .select([sql<Uint8Array | null>`cast(${joined} as blob)`.as('json'), sql<number | null>`count(*)`.as('count'), sql<number | null>`null`.as('last_seen'), sql<string | null>`null`.as('id')]);
    const tail = this.db.selectFrom(lastPositions(p, view, ordered).as('tail')).select([sql<Uint8Array | null>`null`.as('json'), sql<number | null>`null`.as('count'), 'tail.last_seen', 'tail.id']);
    return people.unionAll(tail);
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
          const person = sql<number>`(select pk from people where account_id = ${p('accountId')} and id = ${p('id')})`;
          return this.#scopedPeople(withFigures(PERSON_ACTIVITY, sitePks, latestOfOwner(PERSON_ACTIVITY, sitePks, person), 'ps'));
        }
        return this.#viewQuery(p, view).where(sql.ref(isOneSite(view) ? 'ps.person_id' : 'p.id'), '=', p('id'));
      },
      values,
    );
    return row?.json as string | undefined;
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
    return this.#scopedPeople(withFigures(PERSON_ACTIVITY, sitePks, latest, 'ps'), AS_BODY).orderBy(sql.ref('ps.last_seen'), 'desc').orderBy(sql.ref('ps.id'), 'desc');
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
      .select([this.#json(storedPersonJsonSql(sql`p.json_figures`, sql`k.json_site`), AS_BODY).as('json'), 'k.id', 'k.last_seen'])
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
  #scopedPeople(figures: AliasedRawBuilder<ScopedFigures, 'ps'>, read: JsonRead = AS_TEXT): PeopleQuery {
    return this.db
      .selectFrom(figures)
      .innerJoin('people as p', 'p.pk', 'ps.owner_pk')
      .select([this.#json(storedPersonJsonSql(sql`coalesce(ps.sole_json_figures, ${figuresJsonSql('ps', this.#dialect)})`, sql`ps.json_site`), read).as('json'), 'ps.id', 'ps.last_seen'])
      .$castTo<PersonJsonRow>() as unknown as PeopleQuery;
  }

  /**
   * People in the view with their JSON and sort key, for every view but a scoped key's several
   * sites; a scoped key sees only its site's visits. Each person's JSON is stored text (see
   * person-row.ts): the account view reads it from the person's row alone, one site from the
   * person's row and its visits there. The views read different tables, so callers refine it
   * through `sql.ref`. `inOrder`: a page refined by nothing but `lastSeen`, which the account
   * view then reads from its people's JSON filed in page order, where the dialect stores it.
   */
  #viewQuery(p: Param, view: VisibleView, read: JsonRead = AS_TEXT, inOrder = false): PeopleQuery {
    if (isOneSite(view)) {
      return this.db
        .selectFrom('person_sites as ps')
        .innerJoin('people as p', 'p.pk', 'ps.person_pk')
        .select([this.#json(storedPersonJsonSql(sql`ps.json_figures`, sql`ps.json_site`), read).as('json'), 'ps.person_id as id', 'ps.last_seen'])
        .where('ps.site_pk', '=', p('sitePk'))
        .$castTo<PersonJsonRow>() as unknown as PeopleQuery;
    }
    if (view.kind === 'account' && inOrder && this.#dialect.storesWholePeople) {
      // The account's people as filed in page order (migration 0017), under the people's alias:
      // `p.last_seen` and `p.id` order and bound the page as they do on the people table.
      return this.db
        .selectFrom('people_whole as p')
        .select(['p.id', 'p.last_seen', this.#json(sql.ref<string>('p.json'), read).as('json')])
        .where('p.account_id', '=', p('accountId'))
        .$castTo<PersonJsonRow>() as unknown as PeopleQuery;
    }
    const query = this.db.selectFrom('people as p').select(['p.id', 'p.last_seen']).where('p.account_id', '=', p('accountId'));
    if (view.kind === 'account') return query.select(this.#json(accountPersonJsonSql(), read).as('json')).$castTo<PersonJsonRow>() as unknown as PeopleQuery;
    // Account-wide figures, attributed to the latest of the selected sites.
    const sitePks = sitePlaceholders(view, p);
    return query
      .select(this.#json(storedPersonJsonSql(sql`p.json_figures`, latestSiteJsonOf(sitePks)), read).as('json'))
      .where(visitedAnyOf(sitePks))
      .$castTo<PersonJsonRow>() as unknown as PeopleQuery;
  }
}

/** A `person_sites` row (aliased `a`) of a hot lead: a literal 1, so the hot leads' own indexes apply. */
const HOT_ROW = sql<boolean>`a.person_is_hot_lead = 1`;

/** How a query reads each person's JSON: as text (one person's answer), or as a page body reads it fastest. */
type JsonRead = 'text' | 'body';
const AS_TEXT: JsonRead = 'text';
const AS_BODY: JsonRead = 'body';

/** A people query of any view, seen only through its result row. */
type PeopleQuery = SelectQueryBuilder<Database, keyof Database, PersonJsonRow>;

/** The columns a plain page is ordered by: `lastSeen`, then `id`. */
function plainOrder(view: VisibleView): [RawBuilder<number>, RawBuilder<string>] {
  return isOneSite(view) ? [sql.ref('ps.last_seen'), sql.ref('ps.person_id')] : [sql.ref('p.last_seen'), sql.ref('p.id')];
}

/** The positions (`last_seen`, `id`) of a plain page's last person and of the one after it, if any: from the index alone. */
function lastPositions(p: Param, view: VisibleView, ordered: PeopleQuery) {
  const [lastSeen, id] = plainOrder(view);
  return ordered.clearSelect().select([lastSeen.as('last_seen'), id.as('id')]).limit(2).offset(p('lastIndex'));
}

/**
 * A page from {@link PeopleStore.#pageApart}'s rows: people's JSON (an object, `{`) first, then up
 * to two positions (a JSON array, `[`), the page's last person's and the next one's: a second
 * proves a next page exists, and the cursor points after the first.
 */
function pageOfApartRows(rows: { json: string | Uint8Array }[], limit: number): PeoplePage {
  const positions: [number, string][] = [];
  while (rows.length > 0 && startsArray(rows[rows.length - 1]!.json)) positions.unshift(JSON.parse(asText(rows.pop()!.json)) as [number, string]);
  const [last, following] = positions;
  return { items: rows, count: rows.length, next: following && last && rows.length === limit ? { sortValue: last[0], id: last[1] } : null };
}

/**
 * A page from {@link PeopleStore.#wholePage}'s rows: the people's joined bytes with their count
 * (the row with a count), then up to two positions, in page order (SQLite runs a compound's arms
 * in order), as for {@link pageOfApartRows}.
 */
function pageOfWholeRows(rows: { json: Uint8Array | null; count: number | null; last_seen: number | null; id: string | null }[], limit: number, latin1: Latin1Decoder): PeoplePage {
  const head = rows.find((r) => r.count !== null);
  const [last, following] = rows.filter((r) => r.count === null);
  const count = Number(head?.count ?? 0);
  const items = head?.json ? [{ json: wholeText(head.json, latin1) }] : [];
  return { items, count, next: following && last && count === limit ? { sortValue: last.last_seen!, id: last.id! } : null };
}

/** JSON as text: a position is read as text, but a driver may hand any text over as bytes. */
function asText(json: string | Uint8Array): string {
  return typeof json === 'string' ? json : UTF8.decode(json);
}

const UTF8 = new TextDecoder();

/** Whether a row's JSON is an array (a position) rather than an object (a person). */
function startsArray(json: string | Uint8Array): boolean {
  return (typeof json === 'string' ? json.charCodeAt(0) : json[0]) === 0x5b;
}

/**
 * The stored attribution of the person `p`'s most recently visited site among `sitePks`: the
 * site found by its recency index alone (`latestVisitedOf`), then its row by key.
 */
function latestSiteJsonOf(sitePks: readonly unknown[]): RawBuilder<string> {
  return sql<string>`(select a.json_site from person_sites a where a.person_pk = p.pk and a.site_pk = ${latestVisitedOf(sitePks)})`;
}
