import { sql } from 'kysely';
import type { CursorPosition } from '../paging/cursor.ts';
import type { View } from '../scope/view.ts';
import { CompiledQueries, type Param } from './compiled-queries.ts';
import type { Db } from './schema.ts';
import { canNameStoredText, dialectOf, type SqlDialect } from './dialect/index.ts';

/** A page of a journey: the events' stored JSON joined by commas, by the database. */
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
   * One page of a person's events within the view, optionally of one type, newest first from the
   * keyset `(ts, event_id) < cursor`, in one statement: the page's stored JSON joined by the
   * database, beside the page's last event and the one after it (read from the index alone), which
   * say whether more follow. The person is named by id, so no lookup comes first.
   *
   * Joined in SQL because on SQLite reading the rows and joining them in JavaScript made a page
   * markedly slower (figures in the commit that brought the join back); on Postgres both cost the same.
   */
  async page(view: View, personId: string, eventType: string | undefined, after: CursorPosition | null, limit: number): Promise<EventsPage> {
    if (view.kind === 'empty' || !canNameStoredText(personId)) return { json: '', count: 0, next: null };
    const sitePks = view.kind === 'account' ? [] : view.sites.map((s) => s.pk);
    const values: Record<string, unknown> = { accountId: view.accountId, personId, limit, lastIndex: limit - 1 };
    if (after) Object.assign(values, { afterTs: after.sortValue, afterId: after.id });
    sitePks.forEach((pk, i) => (values[`site${i}`] = pk));
    if (eventType !== undefined) values.eventType = eventType;

    const shape = `${sitePks.length}:${eventType !== undefined}:${after !== null}`;
    const rows = await this.#queries.rows(`page:${shape}`, (p: Param) => {
      const personPk = this.db.selectFrom('people').select('pk').where('account_id', '=', p('accountId')).where('id', '=', p('personId'));
      let journey = this.db.selectFrom('events').where('person_pk', '=', personPk);
      if (sitePks.length > 0) journey = journey.where('site_pk', 'in', sitePks.map((_, i) => p(`site${i}`)));
      if (eventType !== undefined) journey = journey.where('event_type', '=', p('eventType'));
      if (after) journey = journey.where(sql<boolean>`(ts, event_id) < (${p('afterTs')}, ${p('afterId')})`);
      const ordered = journey.orderBy('ts', 'desc').orderBy('event_id', 'desc');
      // The dialect's orderedConcat keeps the sorted, limited subquery's order.
      const bodies = this.db
        .selectFrom(ordered.select(['body', 'ts', 'event_id']).limit(p('limit')).as('page'))
        .select([this.#dialect.orderedConcat(sql.ref('body'), ',', sql`ts desc, event_id desc`).as('json'), sql<number | null>`count(*)`.as('count'), sql<number | null>`null`.as('ts'), sql<string | null>`null`.as('event_id')]);
      const tail = this.db
        .selectFrom(ordered.select(['ts', 'event_id']).limit(2).offset(p('lastIndex')).as('tail'))
        .select([sql<string | null>`null`.as('json'), sql<number | null>`null`.as('count'), 'ts', 'event_id']);
      return bodies.unionAll(tail);
    }, values);
    // SQL leaves the order of a compound select's rows open: the aggregate is the row with a
    // count, and the tail's two rows go in page order here.
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
