import { notFound, quoteInput } from '../http/errors.ts';
import type { RequestContext } from '../http/context.ts';
import { jsonList, rawJson } from '../http/respond.ts';
import { cutPage } from '../paging/page.ts';
import { HOT_LEADS, LAST_SEEN_AFTER, PAGING_PARAMS, SITE_FILTER_PARAMS, readPage, readSiteFilters, viewFor } from './filters.ts';
import type { Reply } from '../http/reply.ts';

/** `GET /v1/people`: people in the caller's view, `lastSeen` descending. */
export async function listPeople(ctx: RequestContext): Promise<Reply> {
  const { query, services, nowSeconds } = ctx;
  query.allowOnly([...PAGING_PARAMS, ...SITE_FILTER_PARAMS, LAST_SEEN_AFTER, HOT_LEADS]);
  const siteFilters = readSiteFilters(query);
  const afterMs = query.instant(LAST_SEEN_AFTER);
  const hot = query.boolean(HOT_LEADS);
  const filters = { lastSeenAfter: afterMs === undefined ? undefined : Math.floor(afterMs / 1000), hotLeadsOnly: hot === true };
  const page = await readPage(ctx, 'people', { ...siteFilters, ...filters });
  const view = await viewFor(ctx, siteFilters);
  const rows = await services.people.page(view, filters, page.after, page.limit + 1);
  const { items, pagination } = await cutPage(rows, page, services.cursors, nowSeconds);
  // Rows arrive as the JSON the API returns (stored text), so the page is joined as text.
  return jsonList(items, pagination);
}

/** `GET /v1/people/{id}`: one person, or 404 when absent or outside the caller's scope. */
export async function getPerson(ctx: RequestContext): Promise<Reply> {
  ctx.query.allowOnly([]);
  const id = ctx.params.id!;
  const person = await ctx.services.people.get(await viewFor(ctx, {}), id);
  if (!person) throw notFound(`No person with id ${quoteInput(id)} is visible to this key.`);
  return rawJson(`{"data":${person}}`);
}
