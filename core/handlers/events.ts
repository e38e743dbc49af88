import { notFound, quoteInput } from '../http/errors.ts';
import type { RequestContext } from '../http/context.ts';
import { rawJson } from '../http/respond.ts';
import { paginationOf } from '../paging/page.ts';
import { PAGING_PARAMS, SITE_FILTER_PARAMS, readPage, readSiteFilters, viewFor } from './filters.ts';
import type { Reply } from '../http/reply.ts';

const EVENT_TYPE = /^[A-Za-z0-9_.:-]{1,64}$/;

/**
 * `GET /v1/people/{id}/events`: a person's journey, newest first. Events are stored as the
 * JSON the API returns, so SQLite joins a page as text; nothing is parsed and re-serialised.
 */
export async function listEvents(ctx: RequestContext): Promise<Reply> {
  const { query, services, nowSeconds } = ctx;
  query.allowOnly([...PAGING_PARAMS, ...SITE_FILTER_PARAMS, 'event_type']);
  const id = ctx.params.id!;
  const siteFilters = readSiteFilters(query);
  const eventType = query.string('event_type', { pattern: EVENT_TYPE, hint: 'an event type such as page_view (letters, digits, _ . : -)' });
  const page = await readPage(ctx, `events:${id}`, { ...siteFilters, eventType });
  // The person must be visible to the key itself; client filters only narrow their events. The
  // page is read beside the person (its rows stay within the view whoever the id names) and
  // dropped when the person is not visible.
  const person = viewFor(ctx, {}).then((keyView) => services.people.summary(keyView, id));
  const events = viewFor(ctx, siteFilters).then((view) => services.events.page(view, id, eventType, page.after, page.limit));
  const [summary, journey] = await Promise.all([person, events]);
  if (!summary) throw notFound(`No person with id ${quoteInput(id)} is visible to this key.`);
  const pagination = await paginationOf(journey.count, journey.next, page, services.cursors, nowSeconds);
  return rawJson(`{"person":${JSON.stringify(summary)},"data":[${journey.json}],"pagination":${JSON.stringify(pagination)}}`);
}
