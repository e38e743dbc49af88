import { sql } from 'kysely';
import type { CursorPosition } from '../paging/cursor.ts';
import type { View } from '../scope/view.ts';
import { CompiledQueries, type Param } from './compiled-queries.ts';
import type { Db } from './schema.ts';
import { canNameStoredText } from './dialect/index.ts';

/** A page of a journey: the events' stored JSON joined by commas. */
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

  constructor(private readonly db: Db) {
    this.#queries = new CompiledQueries(db);
  }

  /**
   * One page of a person's events within the view, optionally of one type: the page and one row
   * more, read from the journey index from the keyset `(ts, event_id) < cursor`. The person is
   * named by id, so no lookup comes first.
   */
  async page(view: View, personId: string, eventType: string | undefined, after: CursorPosition | null, limit: number): Promise<EventsPage> {
    if (view.kind === 'empty' || !canNameStoredText(personId)) return { json: '', count: 0, next: null };
    const sitePks = view.kind === 'account' ? [] : view.sites.map((s) => s.pk);
    const values: Record<string, unknown> = { accountId: view.accountId, personId, take: limit + 1 };
    if (after) Object.assign(values, { afterTs: after.sortValue, afterId: after.id });
    sitePks.forEach((pk, i) => (values[`site${i}`] = pk));
    if (eventType !== undefined) values.eventType = eventType;

    const shape = `${sitePks.length}:${eventType !== undefined}:${after !== null}`;
    const rows = await this.#queries.rows(`page:${shape}`, (p: Param) => {
      const personPk = this.db.selectFrom('people').select('pk').where('account_id', '=', p('accountId')).where('id', '=', p('personId'));
      let query = this.db.selectFrom('events').select(['body', 'ts', 'event_id']).where('person_pk', '=', personPk);
      if (sitePks.length > 0) query = query.where('site_pk', 'in', sitePks.map((_, i) => p(`site${i}`)));
      if (eventType !== undefined) query = query.where('event_type', '=', p('eventType'));
      if (after) query = query.where(sql<boolean>`(ts, event_id) < (${p('afterTs')}, ${p('afterId')})`);
      return query.orderBy('ts', 'desc').orderBy('event_id', 'desc').limit(p('take'));
    }, values);
    const page = rows.length > limit ? rows.slice(0, limit) : rows;
    const last = page[page.length - 1];
    return { json: page.map((r) => r.body).join(','), count: page.length, next: rows.length > limit && last ? { sortValue: last.ts, id: last.event_id } : null };
  }
}
