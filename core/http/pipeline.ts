import type { Digests } from '../crypto/digests.ts';
import type { RateLimits } from '../api-types.ts';
import { authenticate } from '../auth/authenticate.ts';
import { BEFORE_KEY, faultError, operationName, type FaultSite } from '../faults/catalog.ts';
import { failingRunner } from '../faults/export-failed.ts';
import { sleep, type FaultInjector, type FaultPlan } from '../faults/injector.ts';
import { SITE_FILTER_PARAMS } from '../handlers/filters.ts';
import type { HourlyRateLimiter, RateDecision } from '../limits/rate-limiter.ts';
import type { Caller } from '../scope/view.ts';
import type { Clock } from '../time/clock.ts';
import { toEpochSeconds } from '../time/iso.ts';
import { withCaller, type Handler, type PublicContext, type RequestContext, type Services } from './context.ts';
import { ApiError, badRequest } from './errors.ts';
import { Query } from './query.ts';
import type { CoreRequest, Reply } from './reply.ts';
import type { Route } from './routes.ts';

/** A request to an API route on its way through the stages. */
interface Pending {
  route: Route;
  base: PublicContext;
  caller?: Caller;
  rate: Progress;
  /** For fault messages: the operation and its decoded path parameters. */
  site: FaultSite;
}

/** The stages after routing: who is calling, their budget, and the answer. */
interface Stages {
  auth(p: Pending): Promise<void>;
  limits(p: Pending): Promise<void>;
  handler(p: Pending): Promise<Reply>;
}

/**
 * A request to an API route after routing, as a few small stages: faults (when on) plan an error
 * or a delay, auth finds the caller, limits count the request against its budget, and the handler
 * answers. Built once per API from its services.
 */
export function createRoute({ services, digests, clock, limiter, limits, faults }: { services: Services; digests: Digests; clock: Clock; limiter: HourlyRateLimiter; limits: RateLimits; faults?: FaultInjector }) {
  /** The caller's rate-limit bucket and its hourly limit: the account's, or a scoped key's own. */
  const budgetOf = (caller: Caller): [bucket: string, limit: number] =>
    caller.scopeSite ? [`site:${caller.scopeSite.pk}`, limits.scopedKeyPerHour] : [`account:${caller.accountId}`, limits.accountPerHour];

  const STAGES: Stages = {
    // A request naming a site filter will list the account's sites: its key's lookup brings them.
    auth: async (p) => {
      p.caller = await authenticate(p.base.request, services.keys, digests, SITE_FILTER_PARAMS.some((name) => p.base.url.searchParams.has(name)));
    },
    limits: async (p) => {
      const decision = (p.rate.decision = await limiter.take(...budgetOf(p.caller!)));
      if (!decision.allowed) {
        throw new ApiError(429, 'rate_limit_exceeded', `Hourly request limit of ${decision.limit} reached; retry after ${decision.retryAfterSeconds} seconds.`, {
          'retry-after': String(decision.retryAfterSeconds),
        });
      }
    },
    handler: (p) => (p.route.public ? p.route.handler(p.base) : p.route.handler(withCaller(p.base, p.caller!))),
  };

  /**
   * Fault injection, as one stage: it plans the request's fault and delay, waits the delay, and
   * puts the fault where the real error would come: an injected 401 or 403 in place of the key
   * check (uncounted), a 429 in place of the count (reporting the budget as it stands), anything
   * else in place of the handler, once the request is counted.
   */
  async function faultStage(p: Pending, request: CoreRequest, path: string): Promise<Partial<Stages>> {
    const plan = (p.rate.plan = faults?.plan(request, p.route.path, path));
    if (plan?.delayMs) await sleep(plan.delayMs);
    const fault = plan?.fault;
    if (!fault) return {};
    if (fault === 'export_failed') return p.route.public ? {} : { handler: (q) => startFailing(withCaller(q.base, q.caller!), q.route) };
    const fail = async (): Promise<never> => {
      throw faultError(fault, p.site);
    };
    if (p.route.public) return { handler: fail };
    if (BEFORE_KEY.includes(fault)) return { auth: fail };
    if (fault === 'rate_limit_exceeded') {
      return {
        limits: async (q) => {
          q.rate.decision = { ...(await peekBudget(q.caller!)), allowed: false, remaining: 0 };
          throw faultError(fault, { ...q.site, budget: q.rate.decision });
        },
      };
    }
    return { handler: fail };
  }

  async function route(request: CoreRequest, url: URL, found: Route, params: Record<string, string>, rate: Progress): Promise<Reply> {
    const site = { operation: operationName(request.method, found.path), params: decodeParams(params) };
    const base = { request, url, params: site.params, query: new Query(url.searchParams), nowSeconds: toEpochSeconds(clock.now()), services };
    const pending: Pending = { route: found, base, rate, site };
    const stages = faults ? { ...STAGES, ...(await faultStage(pending, request, url.pathname)) } : STAGES;
    if (!found.public) {
      await stages.auth(pending);
      await stages.limits(pending);
    }
    return stages.handler(pending);
  }

  /** Starts the export as usual, but its job fails at once, as a job failing on an internal error does. */
  async function startFailing(ctx: RequestContext, found: Route): Promise<Reply> {
    const failing = failingRunner(services.exports.store);
    const response = await (found.handler as Handler)({ ...ctx, services: { ...services, exports: { ...services.exports, runner: failing.runner } } });
    await failing.settled();
    return response;
  }

  /** The caller's budget as it stands, uncounted. */
  const peekBudget = (caller: Caller): Promise<RateDecision> => limiter.peek(...budgetOf(caller));
  return route;
}

/** Where a request stands: the budget it counted against, whether it was an admin request, the faults applied. */
export interface Progress {
  decision?: RateDecision;
  admin?: boolean;
  plan?: FaultPlan;
}

/** Path parameters as decoded text; a malformed escape is a 400. */
export function decodeParams(params: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(params)) {
    const value = params[name]!;
    try {
      // Most ids carry no escape; decoding one that has none returns it as it is.
      out[name] = value.includes('%') ? decodeURIComponent(value) : value;
    } catch {
      throw badRequest(`Path parameter ${name} is not valid percent-encoding.`);
    }
  }
  return out;
}
