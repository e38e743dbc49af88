import type { RequestContext } from '../http/context.ts';
import { json } from '../http/respond.ts';
import type { Statistics } from '../resources/types.ts';
import { isoSeconds } from '../time/iso.ts';
import { SITE_FILTER_PARAMS, readSiteFilters, viewFor } from './filters.ts';
import type { Reply } from '../http/reply.ts';

/** The period `recentEvents` covers when `days` is not given. */
export const DEFAULT_STATS_DAYS = 30;
const MAX_STATS_DAYS = 365;

/** `GET /v1/stats`: totals in the caller's view and events over the last `days` days. */
export async function getStats(ctx: RequestContext): Promise<Reply> {
  const { query, services, nowSeconds } = ctx;
  query.allowOnly(['days', ...SITE_FILTER_PARAMS]);
  const days = query.integer('days', 1, MAX_STATS_DAYS, DEFAULT_STATS_DAYS);
  const view = await viewFor(ctx, readSiteFilters(query));
  const counts = await services.stats.counts(view, nowSeconds - days * 86_400);
  const data: Statistics = {
    ...counts,
    periodDays: days,
    dailyAverage: Math.round((counts.recentEvents / days) * 100) / 100,
    generatedAt: isoSeconds(nowSeconds),
  };
  return json({ data });
}
