import { sql } from 'kysely';
import type { CursorPosition } from '../paging/cursor.ts';
import type { View } from '../scope/view.ts';
import type { Db } from './schema.ts';

/** An event as stored: its JSON text, ready to send, and its position in the journey. */
export interface EventRow {
  body: string;
  position: CursorPosition;
}

/** Reads a person's journey, newest first: `timestamp` descending then `eventId` descending. */
export class EventsStore {
  constructor(private readonly db: Db) {}

  /** One page of a person's events within the view, optionally of one type. */
  async page(
    view: View,
    personPk: number,
    eventType: string | undefined,
    after: CursorPosition | null,
    take: number,
  ): Promise<EventRow[]> {
    if (view.kind === 'empty') return [];
    let query = this.db.selectFrom('events').select(['ts', 'event_id', 'body']).where('person_pk', '=', personPk);
    if (view.kind === 'site') query = query.where('site_pk', '=', view.site.pk);
    if (view.kind === 'sites') query = query.where('site_pk', 'in', view.sites.map((s) => s.pk));
    if (eventType !== undefined) query = query.where('event_type', '=', eventType);
    if (after) query = query.where(sql<boolean>`(ts, event_id) < (${after.sortValue}, ${after.id})`);
    const rows = await query.orderBy('ts', 'desc').orderBy('event_id', 'desc').limit(take).execute();
    return rows.map((r) => ({ body: r.body, position: { sortValue: r.ts, id: r.event_id } }));
  }
}
