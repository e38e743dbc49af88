import { Admin } from './admin/admin.ts';
import { Background } from './background.ts';
import { Resets } from './resets.ts';
import { createRequestHandler } from './http/handle-request.ts';
import { createRoute } from './http/pipeline.ts';
import { toResponse } from './http/respond.ts';
import { ROUTES, createMatcher, type Route } from './http/routes.ts';
import { HourlyRateLimiter } from './limits/rate-limiter.ts';
import { DatabaseUnavailable } from './store/database-unavailable.ts';
import { toEpochSeconds } from './time/iso.ts';
import type { Api, ApiOptions } from './api-types.ts';
import { resolveOptions } from './defaults.ts';
import type { AdminRoute } from './admin-http/context.ts';
import { AdminGate } from './admin-http/dispatch.ts';
import { ADMIN_ROUTES, FAULT_ROUTES, SIMULATION_ROUTES } from './admin-http/routes.ts';
import type { Services } from './http/context.ts';
import { createCors } from './http/cors.ts';
import type { CoreRequest, Reply } from './http/reply.ts';
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
import { checkApiOptions, checkReadDb } from './options.ts';
import { ReadReplica } from './store/read-replica.ts';

/** Creates the API over a Kysely database (SQLite or PostgreSQL), migrating its schema first. */
export async function createApi(given: ApiOptions): Promise<Api> {
  // Options are checked before any work starts: a refused one must leave nothing running behind it.
  checkApiOptions(given);
  checkReadDb(given.db, given.readDb);
  const options = resolveOptions(given);
  const { db, readDb = db, clock, leaseClock, digests, rateLimits: limits } = options;
  const reportError = options.onError ?? ((error) => console.error('[visitor-intelligence] internal error:', error));
  // An outage is logged once by the adapter that saw it, not once per request or background step.
  const onError = (error: unknown, request?: Request) => {
    if (!(error instanceof DatabaseUnavailable)) reportError(error, request);
  };
  const adminRoutes: AdminRoute[] = options.admin ? [...ADMIN_ROUTES, ...(options.faults ? FAULT_ROUTES : []), ...(options.admin.simulation ? SIMULATION_ROUTES : [])] : [];
  await prepareConnection(db);
  await migrateToLatest(db);
  // Never migrated: a read database gets the schema by replaying db's, which it must have before serving.
  const replica = options.readDb && new ReadReplica(db, options.readDb);
  if (replica) {
    await prepareConnection(readDb);
    await replica.awaitSchema(options.readWait.startMs);
  }
  const catchUpReads = () => (replica ? replica.catchUp(options.readWait.writeMs) : Promise.resolve(true));
  const secret = options.secret ?? (await loadOrCreateSecret(db));

  const sites = new SitesStore(db);
  const exportsStore = new ExportsStore(db, new ExportMembersStore(db));
  const webhooksStore = new WebhooksStore(db);
  // This API's own: its requests make its exports take small steps, and no other API's do.
  const pace = new ExportPace();
  const background = new Background(
    () => new ExportRunner(exportsStore, sites, clock, leaseClock, { ...options.exports, pace: options.exports.pace ?? pace.yield, maxAttempts: 3, onError: (error) => onError(error) }),
    () => new WebhookDispatcher(webhooksStore, clock, leaseClock, { ...options.webhooks, onError: (error) => onError(error), readsCaughtUp: catchUpReads }),
  );
  const services: Services = {
    clock,
    cursors: new CursorSigner(secret, options.cursorTtlSeconds, digests),
    sites,
    keys: new KeysStore(db),
    // What the key may read comes from the read database; who is calling and their budget, from db.
    people: new PeopleStore(readDb),
    companies: new CompaniesStore(readDb),
    events: new EventsStore(readDb),
    stats: new StatsStore(readDb),
    // The runner is replaced on a reset: handlers always reach the current one.
    exports: { store: exportsStore, links: new DownloadLinkSigner(secret, digests), get runner() { return background.runner; } },
    defaultPageSize: options.defaultPageSize,
  };
  // Jobs past retention go; jobs a previous process left running carry on, as do those another process gives up.
  await exportsStore.removeCreatedBy(toEpochSeconds(clock.now()) - EXPORT_RETENTION_SECONDS);
  const wake = () => background.dispatcher.wake();
  const webhookAdmin = new WebhookAdmin(webhooksStore, clock, async (id) => (await db.selectFrom('accounts').select('id').where('id', '=', id).executeTakeFirst()) !== undefined, wake, options.webhooks.activityCap);
  const ingest = new IngestStore(db, { activityCap: options.webhooks.activityCap });
  const admin = new Admin(db, clock, sites, services.keys, ingest, digests, webhookAdmin, wake);
  const limiter = new HourlyRateLimiter(clock, new RateLimitsStore(db));
  const faults = options.faults ? new FaultInjector() : undefined;
  const resets = new Resets(new BaselineStore(db), background, async () => {
    await limiter.clear();
    if (isMovable(clock)) clock.reset?.();
    faults?.rules.clear();
  });
  const reset = () => resets.reset();

  const handle = createRequestHandler({
    match: createMatcher<Route | AdminRoute>([...ROUTES, ...adminRoutes]),
    route: createRoute({ services, digests, clock, limiter, limits, faults }),
    gate: options.admin ? new AdminGate(options.admin.token, digests, { admin, keys: services.keys, clock, reset, faults, catchUpReads, simulation: options.admin.simulation }) : undefined,
    cors: createCors(options.cors, [...ROUTES, ...adminRoutes].map((r) => r.method)),
    clock,
    limits,
    onError,
  });
  /** See {@link Api.reply}: every request, answered as a Reply. */
  const reply = (request: CoreRequest): Promise<Reply> => {
    pace.noteRequest();
    return handle(request);
  };

  // Background work starts last; a start that fails on the way stops it before refusing.
  await background.start();

  const api = {
    fetch: async (request: Request): Promise<Response> => toResponse(await reply(request)),
    admin,
    db,
    clock,
    exportsIdle: () => background.runner.idle(),
    catchUpReads,
    webhooks: { deliverDue: () => background.dispatcher.deliverDue(), idle: () => background.dispatcher.idle() },
    close: () => background.stop(),
    saveBaseline: () => resets.save(),
    reset,
  };
  // Not enumerable: a copy made to wrap `fetch` ({ ...api, fetch }) has no `reply`, so Node's listener serves it through that fetch.
  return Object.defineProperty(api, 'reply', { value: reply, enumerable: false }) as Api;
}
