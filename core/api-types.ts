import type { Admin } from './admin/admin.ts';
import type { SimulationSwitch } from './admin/simulation.ts';
import type { Digests } from './crypto/digests.ts';
import type { CorsOptions } from './http/cors.ts';
import type { Db } from './store/schema.ts';
import type { Clock } from './time/clock.ts';
import type { CoreRequest, Reply } from './http/reply.ts';

/* The API's contract with its host: what createApi takes and what it returns. */

/** Webhook tuning; every field has a default. */
export interface WebhookOptions {
  /** The most events one `person.activity` delivery carries. Default 100. */
  activityCap?: number;
  /** Requests in flight to one endpoint at most. Default 4. */
  concurrencyPerEndpoint?: number;
  /** How long a receiver has to answer, in milliseconds. Default 15,000. */
  requestTimeoutMs?: number;
  /** How often the background looks for due deliveries, in milliseconds (loads wake it at once). Default 1,000. */
  pollIntervalMs?: number;
  /** How long a claim holds a delivery, in seconds of the lease clock. Default 60 (it must outlast a request). */
  leaseSeconds?: number;
  /** Jitter source in [0, 1). Default Math.random. */
  random?: () => number;
  /** How long delivered and failed deliveries stay in the delivery log, in seconds. Default 30 days. */
  logRetentionSeconds?: number;
  /**
   * Send deliveries in the background of this process. Default true; false leaves them in the
   * outbox for `api.webhooks.deliverDue()` or another process sharing the database.
   */
  background?: boolean;
}

/** Control of webhook sending. */
export interface ApiWebhooks {
  /** Sends every delivery due now (by the API's clock) and resolves when all were answered. */
  deliverDue(): Promise<void>;
  /** Resolves once no delivery is being sent. */
  idle(): Promise<void>;
}

/** Requests per hour, per customer account and per domain-scoped key. */
export interface RateLimits {
  /** Shared by all of an account's unscoped keys. Default 1000. */
  accountPerHour: number;
  /** Each domain-scoped key's own budget. Default 1000. */
  scopedKeyPerHour: number;
}

/** Options of {@link createApi}. */
export interface ApiOptions {
  /** The Kysely instance over SQLite; the schema is migrated on creation. */
  db: Db;
  /**
   * A read-only copy of `db` that pages, journeys, companies, stats and single resources are read
   * from: a PostgreSQL streaming-replication hot standby of it. Key checks, the rate-limit count,
   * exports, webhooks, admin and migrations stay on `db`; nothing is ever written to it. Reads may
   * lag `db` by the replication delay (see {@link ApiOptions.readWait}). Default: none, all on `db`.
   */
  readDb?: Db;
  /**
   * How long to wait for `readDb` to catch up with `db`, in milliseconds: at start, for it to hold
   * the schema (`startMs`, default 60,000; the start fails after it), and to have replayed the
   * writes before an admin answer over HTTP, a webhook send or the end of {@link Api.catchUpReads}
   * (`writeMs`, default 5,000; each goes ahead after it anyway).
   */
  readWait?: { startMs?: number; writeMs?: number };
  /** Source of time for limits, cursors and timestamps. Default: the system clock. */
  clock?: Clock;
  /**
   * Source of time for leases: the claims by which processes sharing the database split export
   * jobs and webhook deliveries, and take over those of a process that died. Default: the system
   * clock. Not `clock`: an admin may move that in one process, and a restart moves it back, while
   * a lease must run out at the same moment for every process. Tests pass a clock they move.
   */
  leaseClock?: Clock;
  /** Hourly request limits. */
  rateLimits?: Partial<RateLimits>;
  /** Secret that signs cursors. Default: a random secret kept in the database. */
  secret?: string;
  /** How long a cursor stays valid, in seconds. Default 3600. */
  cursorTtlSeconds?: number;
  /** Page size when `limit` is not given. Default 50. */
  defaultPageSize?: number;
  /**
   * Export tuning: people per write step (default 100, which keeps memory flat and steps short); people pks per
   * collection step (default 1,000); `chunkChars`, about how much CSV text one stored chunk holds (default 32 K);
   * `chunksPerCommit`, chunks per transaction in a full step (default 4); `runPks`, people pks per sorted run of the selection on SQLite (default 16,000); rows
   * per file (default 1,000,000; a job selecting more is `partial`); `pace`, awaited before each step (default: yield
   * to the event loop), which may resolve to the share of a full step to take next (below 1); `leaseSeconds`, how long
   * a claim on a job lasts without progress (default 30: a job whose process died is taken over by another process on
   * the database after that); `pollIntervalMs`, how often this API looks for such jobs (default 2,000; 0 only at start).
   * On PostgreSQL the server writes the whole file in one statement: there a chunk holds `batchRows × chunksPerCommit`
   * lines (400 by default), and the step, collection and run sizes and `chunkChars` do not apply.
   */
  exports?: { batchRows?: number; collectPks?: number; runPks?: number; rowCap?: number; chunkChars?: number; chunksPerCommit?: number; leaseSeconds?: number; pollIntervalMs?: number; pace?: () => Promise<number | void> };
  /**
   * SHA-256 and HMAC for keys, cursors and download links. Default: WebCrypto (asynchronous);
   * the runtime adapters pass synchronous `node:crypto` digests.
   */
  digests?: Digests;
  /** Told about unexpected faults (which answer 500 without details). Default: console.error. */
  onError?: (error: unknown, request?: Request) => void;
  /** CORS for browser clients: which origins may call the API. Default: off (OPTIONS is 405). */
  cors?: CorsOptions;
  /** Webhook delivery tuning. */
  webhooks?: WebhookOptions;
  /**
   * Admin over HTTP under `/_admin/` (reset, clock, accounts, sites, keys, loads, webhooks), for
   * requests carrying `Authorization: Bearer <token>` (at least 16 characters). Default: off, and
   * `/_admin/` paths are 404 like any unknown path. `simulation`: simulated traffic the host runs,
   * which `/_admin/simulation` then switches on and off.
   */
  admin?: { token: string; simulation?: SimulationSwitch };
  /**
   * Fault and latency injection for client testing: `Prefer: fault=<code>` / `Prefer: delay=<ms>`
   * on a request, or rules through `/_admin/faults` (with `admin`). Default: off, and `Prefer` changes nothing.
   */
  faults?: boolean;
}

/** The API: a fetch handler plus the admin surface that sets up accounts, keys and data. */
export interface Api {
  fetch(request: Request): Promise<Response>;
  /**
   * The same answer as `fetch`, before it is a Response, for a request that need not be a Request:
   * Node's listener, given an Api, serves it through this (Node builds Fetch objects in JavaScript).
   */
  reply(request: CoreRequest): Promise<Reply>;
  admin: Admin;
  db: Db;
  clock: Clock;
  /** Resolves once no export job is running (for tests and orderly shutdown). */
  exportsIdle(): Promise<void>;
  /** Webhook sending: deliver what is due now, or wait for sending to settle. */
  webhooks: ApiWebhooks;
  /**
   * Waits until reads see every write committed before the call (with `readDb`, until it has
   * replayed them, up to `readWait.writeMs`) and tells whether they do; at once `true` without
   * `readDb`. Admin writes over HTTP wait for it before answering; `api.admin` calls do not.
   */
  catchUpReads(): Promise<boolean>;
  /** Stops running exports and webhook sending (both resume on the next start); the database stays open. */
  close(): Promise<void>;
  /**
   * Snapshots every data table into baseline tables in the same database (one transaction), for
   * {@link Api.reset}. The demo server calls it once after seeding or opening its file.
   */
  saveBaseline(): Promise<void>;
  /**
   * Back to the baseline (what `POST /_admin/reset` does): running exports stop and the data,
   * keys, exports and webhooks saved by {@link Api.saveBaseline} come back in one transaction;
   * webhook sending in flight is dropped, rate-limit windows cleared, a movable clock reset and
   * fault rules removed. An AdminError when no baseline was saved by this API.
   */
  reset(): Promise<void>;
}

/** The spec's hourly limits, the default of `rateLimits`. */
export const DEFAULT_RATE_LIMITS: RateLimits = { accountPerHour: 1000, scopedKeyPerHour: 1000 };
