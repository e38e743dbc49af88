import type { RateLimits } from '../api-types.ts';
import type { AdminRoute } from '../admin-http/context.ts';
import type { AdminGate } from '../admin-http/dispatch.ts';
import { consoleReply, isConsolePath } from '../console/serve.ts';
import type { RateDecision } from '../limits/rate-limiter.ts';
import { DatabaseUnavailable, RETRY_AFTER_SECONDS } from '../store/database-unavailable.ts';
import type { Clock } from '../time/clock.ts';
import { httpDate } from '../time/iso.ts';
import type { Cors } from './cors.ts';
import { ApiError, quoteInput, quoteName } from './errors.ts';
import { mountPrefix, routedPath } from './mount.ts';
import { decodeParams, type Progress } from './pipeline.ts';
import type { CoreRequest, Reply } from './reply.ts';
import { newRequestId } from './request-id.ts';
import { errorResponse } from './respond.ts';
import type { Match, Route } from './routes.ts';

/** What answering a request needs, built once per API by `createApi`. */
export interface RequestHandling {
  match(method: string, path: string): Promise<Match<Route | AdminRoute>>;
  /** An API route's stages (core/http/pipeline.ts). */
  route(request: CoreRequest, url: URL, route: Route, params: Record<string, string>, rate: Progress): Promise<Reply>;
  /** Admin over HTTP and the console, when on. */
  gate?: AdminGate;
  cors?: Cors;
  clock: Clock;
  limits: RateLimits;
  onError(error: unknown, request?: Request): void;
}

/**
 * Every request, answered as a Reply, in stages: CORS answers a preflight; the mount prefix is
 * taken off and the path routed to the console, an admin route or an API route; any error
 * becomes the spec's envelope; every answer gets its date, request id and budget headers; CORS
 * decorates it.
 */
export function createRequestHandler(h: RequestHandling): (request: CoreRequest) => Promise<Reply> {
  async function routed(request: CoreRequest, rate: Progress): Promise<Reply> {
    const url = new URL(request.url);
    const prefix = mountPrefix(request);
    const path = routedPath(url.pathname, prefix);
    if (path === null) return notFound(url.pathname);
    url.pathname = path;
    // The console is static pages over the admin routes: served only where those are.
    if (h.gate && isConsolePath(path)) {
      rate.admin = true;
      return consoleReply(request.method, path, prefix, request.headers.get('if-none-match'));
    }
    const found = await h.match(request.method, path);
    if (found.kind === 'route' && 'admin' in found.route) {
      rate.admin = true;
      return h.gate!.handle(request, url, found.route, decodeParams(found.params));
    }
    if (found.kind === 'route') return h.route(request, url, found.route as Route, found.params, rate);
    if (found.kind === 'wrong_method') {
      throw new ApiError(405, 'method_not_allowed', `Method ${quoteName(request.method)} is not allowed on ${quoteInput(path)}; allowed: ${found.allow}.`, { allow: found.allow });
    }
    return notFound(path);
  }

  async function answered(request: CoreRequest, rate: Progress): Promise<Reply> {
    try {
      return await routed(request, rate);
    } catch (error) {
      if (error instanceof ApiError) return errorResponse(error);
      if (error instanceof DatabaseUnavailable) {
        return errorResponse(new ApiError(500, 'internal_error', 'The database is unavailable; retry in a moment.', { 'retry-after': String(RETRY_AFTER_SECONDS) }));
      }
      h.onError(error, asRequest(request));
      return errorResponse(new ApiError(500, 'internal_error', 'An unexpected error occurred; it has been logged.'));
    }
  }

  return async (request) => {
    const preflight = h.cors?.preflight(request);
    if (preflight) return preflight;
    const rate: Progress = {};
    const reply = await answered(request, rate);
    reply.headers.set('date', httpDate(h.clock.now()));
    reply.headers.set('x-request-id', newRequestId());
    // Admin requests belong to no account's budget, so they carry none.
    if (!rate.admin) budgetHeaders(reply, rate.decision ?? { allowed: true, limit: h.limits.accountPerHour, remaining: h.limits.accountPerHour, retryAfterSeconds: 0 });
    if (rate.plan) reply.headers.set('preference-applied', rate.plan.applied);
    return h.cors ? h.cors.decorate(request, reply) : reply;
  };
}

function notFound(path: string): Reply {
  return errorResponse(new ApiError(404, 'not_found', `No endpoint at ${quoteInput(path)}.`));
}

function budgetHeaders(reply: Reply, rate: RateDecision): void {
  reply.headers.set('x-ratelimit-limit', String(rate.limit));
  reply.headers.set('x-ratelimit-remaining', String(rate.remaining));
}

/** The request as a Fetch Request for `onError` (whose signature promises one): its method and URL when the adapter passed no Request. */
function asRequest(request: CoreRequest): Request | undefined {
  if (request instanceof Request) return request;
  try {
    return new Request(request.url, { method: request.method });
  } catch {
    return undefined;
  }
}
