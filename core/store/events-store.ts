import { sql } from 'kysely';
import type { CursorPosition } from '../paging/cursor.ts';
import type { View } from '../scope/view.ts';
import { CompiledQueries, type Param } from './compiled-queries.ts';
import type { Db } from './schema.ts';
import { canNameStoredText, dialectOf, type SqlDialect } from './dialect/index.ts';

/** A page of a journey: the events' stored JSON joined by commas (by the database, or in JavaScript where reading the rows is cheaper). */
export interface EventsPage {
  /** `{…},{…}`: the page's events, newest first, as the API returns them (empty for none). */
  json: string;
  count: number;
  /** The last event's position when more events follow it; null on the last page. */
  next: CursorPosition | null;
}

/** Reads a person's journey, newest first: `timestamp` descending then `eventId` descending. */
export class EventsStore {
  readonly #queries: CompiledQueries;
  readonly #dialect: SqlDialect;

  constructor(private readonly db: Db) {
    this.#queries = new CompiledQueries(db);
    this.#dialect = dialectOf(db);
  }

  /**
   * One page of a person's events within the view, optionally of one type. Where the database
   * joins the stored JSON faster than JavaScript (SQLite), one statement joins the page; elsewhere
   * it reads the page and one row more. The person is named by id, so no lookup comes first.
   */
  async page(view: View, personId: string, eventType: string | undefined, after: CursorPosition | null, limit: number): Promise<EventsPage> {
    if (view.kind === 'empty' || !canNameStoredText(personId)) return { json: '', count: 0, next: null };
    const sitePks = view.kind === 'account' ? [] : view.sites.map((s) => s.pk);
    const joins = this.#dialect.joinsPageBodies;
    // One literal per shape: an object that grows after a spread leaves V8's fast path.
    const { accountId } = view;
    const values: Record<string, unknown> = joins
      ? after
        ? { accountId, personId, limit, lastIndex: limit - 1, afterTs: after.sortValue, afterId: after.id }
        : { accountId, personId, limit, lastIndex: limit - 1 }
      : after
        ? { accountId, personId, take: limit + 1, afterTs: after.sortValue, afterId: after.id }
        : { accountId, personId, take: limit + 1 };
    sitePks.forEach((pk, i) => (values[`site${i}`] = pk));
    if (eventType !== undefined) values.eventType = eventType;

    // Where the page starts. Postgres seeks the keyset `(ts, event_id) < (…)`; SQLite would test
    // it on every row, so it takes `ts <= …` and skips the rows tied with the cursor's timestamp.
    const skips = after !== null && !this.#dialect.seeksRowValues;
    const journey = (p: Param, from: 'start' | 'cursor') => {
      const personPk = this.db.selectFrom('people').select('pk').where('account_id', '=', p('accountId')).where('id', '=', p('personId'));
      let query = this.db.selectFrom('events').where('person_pk', '=', personPk);
      if (sitePks.length > 0) query = query.where('site_pk', 'in', sitePks.map((_, i) => p(`site${i}`)));
      if (eventType !== undefined) query = query.where('event_type', '=', p('eventType'));
      if (skips) query = query.where('ts', from === 'start' ? '<=' : '=', p('afterTs'));
      else if (after) query = query.where(sql<boolean>`(ts, event_id) < (${p('afterTs')}, ${p('afterId')})`);
      return query;
    };
    const skipped = (p: Param) => sql<number>`(${journey(p, 'cursor').select((eb) => eb.fn.countAll<number>().as('n')).where('event_id', '>=', p('afterId'))})`;
    const ordered = (p: Param) => journey(p, 'start').orderBy('ts', 'desc').orderBy('event_id', 'desc');
    const shape = `${sitePks.length}:${eventType !== undefined}:${after !== null}`;
    if (!joins) {
      const rows = await this.#queries.rows(`rows:${shape}`, (p) => ordered(p).select(['body', 'ts', 'event_id']).limit(p('take')).$if(skips, (q) => q.offset(skipped(p))), values);
      const page = rows.length > limit ? rows.slice(0, limit) : rows;
      const last = page[page.length - 1];
      return { json: page.map((r) => r.body).join(','), count: page.length, next: rows.length > limit && last ? { sortValue: last.ts, id: last.event_id } : null };
    }
    const rows = await this.#queries.rows(`page:${shape}`, (p) => {
      // The page's bodies joined in its order (see the dialect's orderedConcat: on SQLite, the
      // order the sorted, limited subquery yields them; an ORDER BY there would sort them again).
      const bodies = this.db
        .selectFrom(ordered(p).select(['body', 'ts', 'event_id']).limit(p('limit')).$if(skips, (q) => q.offset(skipped(p))).as('page'))
        .select([this.#dialect.orderedConcat(sql.ref('body'), ',', sql`ts desc, event_id desc`).as('json'), sql<number | null>`count(*)`.as('count'), sql<number | null>`null`.as('ts'), sql<string | null>`null`.as('event_id')]);
      // The page's last event and the one after it, if any: read from the index alone.
      const tail = this.db
        .selectFrom(ordered(p).select(['ts', 'event_id']).limit(2).offset(skips ? sql<number>`${p('lastIndex')} + ${skipped(p)}` : p('lastIndex')).as('tail'))
        .select([sql<string | null>`null`.as('json'), sql<number | null>`null`.as('count'), 'ts', 'event_id']);
      return bodies.unionAll(tail);
    }, values);
    // SQL leaves the order of a compound select's rows open (Postgres may run its arms in any
    // order): the aggregate is the row with a count, and the tail's two rows go in page order here.
    const head = rows.find((r) => r.count !== null);
    const [last, following] = rows.filter((r) => r.count === null).sort(newestFirst);
    const count = head?.count ?? 0;
    const next = following && last && count === limit ? { sortValue: last.ts!, id: last.event_id! } : null;
    return { json: head?.json ?? '', count, next };
  }
}

/** Page order of two tail rows: `ts` descending, then `event_id` descending by code point (as SQLite and `COLLATE "C"` compare). */
function newestFirst(a: { ts: number | null; event_id: string | null }, b: { ts: number | null; event_id: string | null }): number {
  return b.ts! - a.ts! || byCodePoint(b.event_id!, a.event_id!);
}

/** Compares strings by code point; JavaScript's `<` compares UTF-16 units, which orders U+E000–U+FFFF after astral characters. */
function byCodePoint(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}
