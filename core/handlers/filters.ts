import { validationError } from '../http/errors.ts';
import type { RequestContext } from '../http/context.ts';
import type { Query } from '../http/query.ts';
import { readCursor, type PageRequest } from '../paging/page.ts';
import { normalizeDomain } from '../scope/domain.ts';
import { resolveView, scopeTag, type SiteFilters, type View } from '../scope/view.ts';

/** The client filters every read endpoint understands. */
export const SITE_FILTER_PARAMS = ['domain', 'client_ref'] as const;
/** The paging parameters of every list endpoint. */
export const PAGING_PARAMS = ['limit', 'cursor'] as const;
/** Name of the filter to rows whose `lastSeen` is after a date. */
export const LAST_SEEN_AFTER = 'last_seen_after';
/** Name of the filter to hot leads only. */
export const HOT_LEADS = 'hot_leads';
/** The largest page. */
export const MAX_PAGE_SIZE = 100;

/** Reads `domain` and `client_ref`. */
export function readSiteFilters(query: Query): SiteFilters {
  const filters: SiteFilters = {};
  const domain = query.string('domain', { maxLength: 253 });
  if (domain !== undefined) {
    const normalized = normalizeDomain(domain);
    if (!normalized) throw validationError('Parameter domain must be a hostname such as example.com.');
    filters.domain = normalized;
  }
  const clientRef = query.string('client_ref', { maxLength: 128 });
  if (clientRef !== undefined) filters.clientRef = clientRef;
  return filters;
}

/** The view this request may read: its key's scope narrowed by its client filters. */
export function viewFor(ctx: RequestContext, filters: SiteFilters): Promise<View> {
  return resolveView(ctx.caller, filters, (accountId) => ctx.services.sites.list(accountId));
}

/**
 * Reads `limit` and `cursor`, binding the cursor to the route, the caller's scope and every
 * filter value, so a cursor replayed with other filters or another key is rejected.
 */
export async function readPage(ctx: RequestContext, route: string, filters: Record<string, unknown>): Promise<PageRequest> {
  const limit = ctx.query.integer('limit', 1, MAX_PAGE_SIZE, ctx.services.defaultPageSize);
  const context = JSON.stringify([route, scopeTag(ctx.caller), filters]);
  // Any unusable cursor, even an empty or huge one, is an invalid cursor rather than a bad parameter.
  const cursor = ctx.url.searchParams.get('cursor') ?? undefined;
  const after = await readCursor(ctx.services.cursors, cursor, context, ctx.nowSeconds);
  return { limit, after, context };
}
