import { notFound, quoteInput } from '../http/errors.ts';
import type { RequestContext } from '../http/context.ts';
import { jsonList, rawJson } from '../http/respond.ts';
import { cutPage } from '../paging/page.ts';
import { LAST_SEEN_AFTER, PAGING_PARAMS, SITE_FILTER_PARAMS, readPage, readSiteFilters, viewFor } from './filters.ts';
import type { Reply } from '../http/reply.ts';

/** `GET /v1/companies`: companies in the caller's view, `lastSeen` descending. */
export async function listCompanies(ctx: RequestContext): Promise<Reply> {
  const { query, services, nowSeconds } = ctx;
  query.allowOnly([...PAGING_PARAMS, ...SITE_FILTER_PARAMS, LAST_SEEN_AFTER]);
  const siteFilters = readSiteFilters(query);
  const afterMs = query.instant(LAST_SEEN_AFTER);
  const filters = { lastSeenAfter: afterMs === undefined ? undefined : Math.floor(afterMs / 1000) };
  const page = await readPage(ctx, 'companies', { ...siteFilters, ...filters });
  const view = await viewFor(ctx, siteFilters);
  const rows = await services.companies.page(view, filters, page.after, page.limit + 1);
  const { items, pagination } = await cutPage(rows, page, services.cursors, nowSeconds);
  // Rows arrive as the JSON the API returns (built by SQLite), so the page is joined as text.
  return jsonList(items, pagination);
}

/** `GET /v1/companies/{id}`: one company, or 404 when absent or outside the caller's scope. */
export async function getCompany(ctx: RequestContext): Promise<Reply> {
  ctx.query.allowOnly([]);
  const id = ctx.params.id!;
  const company = await ctx.services.companies.get(await viewFor(ctx, {}), id);
  if (!company) throw notFound(`No company with id ${quoteInput(id)} is visible to this key.`);
  return rawJson(`{"data":${company}}`);
}
