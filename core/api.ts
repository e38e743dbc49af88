import { Admin } from './admin/admin.ts';
import type { Api, ApiOptions } from './api-types.ts';
import { resolveOptions } from './defaults.ts';
import { AdminError } from './admin/inputs.ts';
import type { AdminRoute } from './admin-http/context.ts';
import { AdminGate } from './admin-http/dispatch.ts';
import { ADMIN_ROUTES, FAULT_ROUTES, SIMULATION_ROUTES } from './admin-http/routes.ts';
import type { Services } from './http/context.ts';
import { createRoute, decodeParams, type Progress } from './http/pipeline.ts';
import { createCors } from './http/cors.ts';
import { ApiError, quoteInput, quoteName } from './http/errors.ts';
import { mountPrefix, routedPath } from './http/mount.ts';
import { newRequestId } from './http/request-id.ts';
import { errorResponse, toResponse } from './http/respond.ts';
import type { CoreRequest, Reply } from './http/reply.ts';
import { ROUTES, createMatcher, type Match, type Route } from './http/routes.ts';
import { HourlyRateLimiter, type RateDecision } from './limits/rate-limiter.ts';
import { CursorSigner } from './paging/cursor.ts';
import { CompaniesStore } from './store/companies-store.ts';
import { EventsStore } from './store/events-store.ts';
import { IngestStore } from './store/ingest-store.ts';
import { KeysStore } from './store/keys-store.ts';
import { migrateToLatest, prepareConnection } from './store/migrations.ts';
import { PeopleStore } from './store/people-store.ts';
import { RateLimitsStore } from './store/rate-limits-store.ts';
import { SitesStore } from './store/sites-store.ts';
import { StatsStore } from './store/stats-store.ts';
import { httpDate, toEpochSeconds } from './time/iso.ts';
import { DownloadLinkSigner } from './exports/download-link.ts';
import { ExportPace } from './exports/pace.ts';
import { ExportRunner } from './exports/runner.ts';
import { ExportsStore } from './store/exports-store.ts';
import { ExportMembersStore } from './store/export-members-store.ts';
import { EXPORT_RETENTION_SECONDS } from './handlers/exports.ts';
import { loadOrCreateSecret } from './store/meta-store.ts';
import { WebhooksStore } from './store/webhooks-store.ts';
import { WebhookDispatcher } from './webhooks/dispatcher.ts';
import { WebhookAdmin } from './webhooks/webhook-admin.ts';
import { BaselineStore } from './store/baseline-store.ts';
import { isMovable } from './time/adjustable-clock.ts';
import { FaultInjector } from './faults/injector.ts';
import { DatabaseUnavailable, RETRY_AFTER_SECONDS } from './store/database-unavailable.ts';
import { checkApiOptions } from './options.ts';
import { consoleReply, isConsolePath } from './console/serve.ts';

/** Creates the API over a Kysely database (SQLite or PostgreSQL), migrating its schema first. */
export async function createApi(given: ApiOptions): Promise<Api> {
  // Options are checked before any work starts: a refused one must leave nothing running behind it.
  checkApiOptions(given);
  const options = resolveOptions(given);
  const { db, clock, leaseClock, digests, rateLimits: limits } = options;
  const reportError = options.onError ?? ((error) => console.error('[visitor-intelligence] internal error:', error));
  // An outage is logged once by the adapter that saw it, not once per request or background step.
  const onError = (error: unknown, request?: Request) => {
    if (!(error instanceof DatabaseUnavailable)) reportError(error, request);
  };
  const adminRoutes: AdminRoute[] = options.admin ? [...ADMIN_ROUTES, ...(options.faults ? FAULT_ROUTES : []), ...(options.admin.simulation ? SIMULATION_ROUTES : [])] : [];
  const cors = createCors(options.cors, [...ROUTES, ...adminRoutes].map((r) => r.method));
  await prepareConnection(db);
  await migrateToLatest(db);
  const secret = options.secret ?? (await loadOrCreateSecret(db));

  const sites = new SitesStore(db);
  const exportsStore = new ExportsStore(db, new ExportMembersStore(db));
  // This API's own: its requests make its exports take small steps, and no other API's do.
  const pace = new ExportPace();
  const newRunner = () => new ExportRunner(exportsStore, sites, clock, leaseClock, { ...options.exports, pace: options.exports.pace ?? pace.yield, maxAttempts: 3, onError: (error) => onError(error) });
  let runner = newRunner();
  const services: Services = {
    clock,
    cursors: new CursorSigner(secret, options.cursorTtlSeconds, digests),
    sites,
    keys: new KeysStore(db),
    people: new PeopleStore(db),
    companies: new CompaniesStore(db),
    events: new EventsStore(db),
    stats: new StatsStore(db),
    exports: { store: exportsStore, runner, links: new DownloadLinkSigner(secret, digests) },
    defaultPageSize: options.defaultPageSize,
  };
  // Jobs past retention go; jobs a previous process left running carry on, as do those another process gives up.
  await exportsStore.removeCreatedBy(toEpochSeconds(clock.now()) - EXPORT_RETENTION_SECONDS);
  const webhooksStore = new WebhooksStore(db);
  const newDispatcher = () => new WebhookDispatcher(webhooksStore, clock, leaseClock, { ...options.webhooks, onError: (error) => onError(error) });
  let dispatcher = newDispatcher();
  const webhookAdmin = new WebhookAdmin(webhooksStore, clock, async (id) => (await db.selectFrom('accounts').select('id').where('id', '=', id).executeTakeFirst()) !== undefined, () => dispatcher.wake(), options.webhooks.activityCap);
  const ingest = new IngestStore(db, { activityCap: options.webhooks.activityCap });
  const admin = new Admin(db, clock, sites, services.keys, ingest, digests, webhookAdmin, () => dispatcher.wake());
  const limiter = new HourlyRateLimiter(clock, new RateLimitsStore(db));
  const baseline = new BaselineStore(db);
  let baselineSaved = false;
  const faults = options.faults ? new FaultInjector() : undefined;

  let resets: Promise<void> = Promise.resolve();
  /** See {@link Api.reset}; resets asked for while one runs follow it, one at a time. */
  function reset(): Promise<void> {
    const next = resets.catch(() => undefined).then(restore);
    resets = next;
    return next;
  }

  async function restore(): Promise<void> {
    if (!baselineSaved) throw new AdminError('no baseline to reset to: the server saves one when it starts (api.saveBaseline())');
    await Promise.all([runner.stop(), dispatcher.stop()]);
    try {
      await baseline.restore();
      await limiter.clear();
      if (isMovable(clock)) clock.reset?.();
      faults?.rules.clear();
    } finally {
      // Stopped runners and dispatchers stay stopped: fresh ones take over the tables (restored or, after a failure, as they were).
      runner = newRunner();
      services.exports = { ...services.exports, runner };
      dispatcher = newDispatcher();
      dispatcher.start();
      await runner.resumeInterrupted();
    }
  }

  const gate = options.admin && new AdminGate(options.admin.token, digests, { admin, keys: services.keys, clock, reset, faults, simulation: options.admin.simulation });
  const match = createMatcher<Route | AdminRoute>([...ROUTES, ...adminRoutes]);

  const route = createRoute({ services, digests, clock, limiter, limits, faults });

  /** See {@link Api.reply}: every request, answered as a Reply. */
  async function reply(request: CoreRequest): Promise<Reply> {
    pace.noteRequest();
    const preflight = cors?.preflight(request);
    if (preflight) return preflight;
    const rate: Progress = {};
    let response: Reply;
    try {
      const url = new URL(request.url);
      const prefix = mountPrefix(request);
      const path = routedPath(url.pathname, prefix);
      // The console is static pages over the admin routes: served only where those are.
      const toConsole = gate && path !== null && isConsolePath(path);
      const found: Match<Route | AdminRoute> = path === null || toConsole ? { kind: 'none' } : await match(request.method, path);
      if (path !== null) url.pathname = path;
      if (toConsole) {
        rate.admin = true;
        response = await consoleReply(request.method, path, prefix, request.headers.get('if-none-match'));
      } else if (found.kind === 'route' && 'admin' in found.route) {
        rate.admin = true;
        response = await gate!.handle(request, url, found.route, decodeParams(found.params));
      } else if (found.kind === 'route') response = await route(request, url, found.route as Route, found.params, rate);
      else if (found.kind === 'wrong_method') {
        response = errorResponse(new ApiError(405, 'method_not_allowed', `Method ${quoteName(request.method)} is not allowed on ${quoteInput(url.pathname)}; allowed: ${found.allow}.`, { allow: found.allow }));
      } else response = errorResponse(new ApiError(404, 'not_found', `No endpoint at ${quoteInput(url.pathname)}.`));
    } catch (error) {
      if (error instanceof ApiError) response = errorResponse(error);
      else if (error instanceof DatabaseUnavailable) response = errorResponse(unavailable());
      else {
        onError(error, asRequest(request));
        response = errorResponse(new ApiError(500, 'internal_error', 'An unexpected error occurred; it has been logged.'));
      }
    }
    response.headers.set('date', httpDate(clock.now()));
    // Admin requests belong to no account's budget, so they carry none.
    finish(response, rate.admin ? undefined : (rate.decision ?? { allowed: true, limit: limits.accountPerHour, remaining: limits.accountPerHour, retryAfterSeconds: 0 }));
    if (rate.plan) response.headers.set('preference-applied', rate.plan.applied);
    return cors ? cors.decorate(request, response) : response;
  }

  try {
    // Background work starts last; a start that fails on the way stops it before refusing.
    await runner.resumeInterrupted();
    // Deliveries a previous process left pending go out now.
    dispatcher.start();
  } catch (error) {
    await Promise.all([runner.stop(), dispatcher.stop()]);
    throw error;
  }

  const api = {
    fetch: async (request: Request): Promise<Response> => toResponse(await reply(request)),
    admin,
    db,
    clock,
    exportsIdle: () => runner.idle(),
    webhooks: { deliverDue: () => dispatcher.deliverDue(), idle: () => dispatcher.idle() },
    close: async () => {
      await Promise.all([runner.stop(), dispatcher.stop()]);
    },
    saveBaseline: async () => {
      await baseline.save();
      baselineSaved = true;
    },
    reset,
  };
  // Not enumerable: a copy made to wrap `fetch` ({ ...api, fetch }) has no `reply`, so Node's listener serves it through that fetch.
  return Object.defineProperty(api, 'reply', { value: reply, enumerable: false }) as Api;
}

/** The answer while the database is out: the spec's 500, and when to try again. */
function unavailable(): ApiError {
  return new ApiError(500, 'internal_error', 'The database is unavailable; retry in a moment.', { 'retry-after': String(RETRY_AFTER_SECONDS) });
}

/** Adds the headers every response carries. */
function finish(response: Reply, rate: RateDecision | undefined): Reply {
  response.headers.set('x-request-id', newRequestId());
  if (!rate) return response;
  response.headers.set('x-ratelimit-limit', String(rate.limit));
  response.headers.set('x-ratelimit-remaining', String(rate.remaining));
  return response;
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
