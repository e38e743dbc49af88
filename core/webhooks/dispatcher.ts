import { toHex } from '../auth/api-key.ts';
import type { DeliveryRow, EndpointRow, WebhooksStore } from '../store/webhooks-store.ts';
import { retryWhileUnavailable } from '../store/database-unavailable.ts';
import type { Clock } from '../time/clock.ts';
import { isoSeconds, toEpochSeconds } from '../time/iso.ts';
import { parseRetryAfter, retryDelay } from './schedule.ts';
import { webhookHeaders } from './signing.ts';

/** Tuning of webhook sending. */
export interface DispatcherOptions {
  /** Requests in flight to one endpoint at most. */
  concurrencyPerEndpoint: number;
  /** A request without an answer by then is abandoned as timed out (real milliseconds). */
  requestTimeoutMs: number;
  /** How often the background looks for due deliveries (real milliseconds); loads wake it at once. */
  pollIntervalMs: number;
  /** How long a claim holds a delivery (seconds of the lease clock); a dead process's claims expire after it. */
  leaseSeconds: number;
  /** Jitter source in [0, 1). */
  random: () => number;
  /** Send in the background; when false, only {@link WebhookDispatcher.deliverDue} sends. */
  background: boolean;
  /** How long delivered and failed deliveries stay in the log (clock seconds). */
  logRetentionSeconds: number;
  onError: (error: unknown) => void;
  /** Waits (bounded) until reads show every write made so far: with a read database, its replay. */
  readsCaughtUp?: () => Promise<unknown>;
}

/** Thrown into a request that the dispatcher's stop cut off: the delivery is given back, not failed. */
class Stopping extends Error {}

/**
 * Sends the outbox: claims due deliveries in small numbers per endpoint (so memory stays flat
 * however long the outbox is), posts them signed, and records each attempt with the delivery's
 * next state. A slow receiver only holds its own endpoint's few slots. Deliveries fall due by the
 * API's clock; claims run on `leaseClock`, which no admin moves, so they mean the same to every process.
 */
export class WebhookDispatcher {
  readonly #owner = `dsp_${toHex(crypto.getRandomValues(new Uint8Array(8)))}`;
  readonly #inFlight = new Map<string, number>();
  readonly #sends = new Set<Promise<void>>();
  readonly #aborts = new Set<AbortController>();
  #tail: Promise<unknown> = Promise.resolve();
  #queued: Promise<number> | null = null;
  #timer: ReturnType<typeof setInterval> | undefined;
  #stopped = false;
  /** When the log is next pruned (clock seconds): on the first round, then hourly. */
  #nextPrune = 0;

  constructor(
    private readonly store: WebhooksStore,
    private readonly clock: Clock,
    private readonly leaseClock: Clock,
    private readonly options: DispatcherOptions,
  ) {}

  /** Starts background sending (when enabled): pending deliveries, a previous process's included, go out now. */
  start(): void {
    if (!this.options.background || this.#stopped) return;
    this.#timer = setInterval(() => this.wake(), this.options.pollIntervalMs);
    (this.#timer as { unref?: () => void }).unref?.();
    this.wake();
  }

  /** Looks for due deliveries soon (after a load wrote some). */
  wake(): void {
    if (!this.options.background || this.#stopped) return;
    this.#pump().catch(this.options.onError);
  }

  /** Sends every delivery due now and waits for the answers; retries fall due later, by the clock. */
  async deliverDue(): Promise<void> {
    for (;;) {
      const claimed = await this.#pump();
      await this.idle();
      if (claimed === 0 || this.#stopped) return;
    }
  }

  /** Resolves when no claim is being made and no request is in flight. */
  async idle(): Promise<void> {
    for (;;) {
      const tail = this.#tail;
      await tail;
      if (this.#sends.size === 0) {
        if (tail === this.#tail) return;
        continue;
      }
      await Promise.allSettled([...this.#sends]);
    }
  }

  /** Stops sending: requests in flight are cut off and their deliveries given back for the next start. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    for (const controller of this.#aborts) controller.abort(new Stopping('stopping'));
    await this.idle();
  }

  /** Runs one claim round after the one under way; rounds asked for while one waits share it. */
  #pump(): Promise<number> {
    if (this.#queued) return this.#queued;
    const run = this.#tail.then(() => {
      this.#queued = null;
      return this.#claimAndSend();
    });
    this.#queued = run;
    this.#tail = run.catch(() => 0);
    return run;
  }

  /** Claims what each enabled endpoint has due, up to its free slots, and starts sending it. */
  async #claimAndSend(): Promise<number> {
    if (this.#stopped) return 0;
    const now = toEpochSeconds(this.clock.now());
    if (now >= this.#nextPrune) {
      this.#nextPrune = now + 3600;
      // In small transactions, so a long log never holds the database for long.
      while ((await this.store.pruneFinished(now - this.options.logRetentionSeconds, 500)) === 500 && !this.#stopped);
    }
    const claimed: [EndpointRow, DeliveryRow][] = [];
    for (const endpoint of await this.store.enabledEndpoints()) {
      const free = this.options.concurrencyPerEndpoint - (this.#inFlight.get(endpoint.id) ?? 0);
      if (free <= 0 || this.#stopped) continue;
      const leaseNow = toEpochSeconds(this.leaseClock.now());
      const lease = { owner: this.#owner, now: leaseNow, until: leaseNow + this.options.leaseSeconds };
      for (const delivery of await this.store.claim(endpoint.id, now, lease, free)) claimed.push([endpoint, delivery]);
    }
    // A receiver that reads the API on a delivery finds the person it announces, on a lagging read database too.
    if (claimed.length > 0) await this.options.readsCaughtUp?.();
    for (const [endpoint, delivery] of claimed) {
      if (this.#stopped) await this.store.release(delivery.pk, this.#owner);
      else this.#send(endpoint, delivery);
    }
    return claimed.length;
  }

  #send(endpoint: EndpointRow, delivery: DeliveryRow): void {
    this.#inFlight.set(endpoint.id, (this.#inFlight.get(endpoint.id) ?? 0) + 1);
    const sending: Promise<void> = this.#attempt(endpoint, delivery)
      .catch(this.options.onError)
      .finally(() => {
        const left = this.#inFlight.get(endpoint.id)! - 1;
        if (left === 0) this.#inFlight.delete(endpoint.id);
        else this.#inFlight.set(endpoint.id, left);
        this.#sends.delete(sending);
        this.wake();
      });
    this.#sends.add(sending);
  }

  /** One POST of a delivery, and its record. */
  async #attempt(endpoint: EndpointRow, delivery: DeliveryRow): Promise<void> {
    const nowMs = this.clock.now();
    const at = toEpochSeconds(nowMs);
    const body = envelope(delivery, at);
    const secrets = endpoint.previous_secret && (endpoint.previous_secret_until ?? 0) > at ? [endpoint.secret, endpoint.previous_secret] : [endpoint.secret];
    const headers = await webhookHeaders(secrets, delivery.id, at, body);
    const controller = new AbortController();
    this.#aborts.add(controller);
    const started = performance.now();
    const timeout = setTimeout(() => controller.abort(new Error(`timed out after ${this.options.requestTimeoutMs} ms`)), this.options.requestTimeoutMs);
    let status: number | null = null;
    let retryAfter: string | null = null;
    let error: string | null = null;
    try {
      const response = await fetch(endpoint.url, { method: 'POST', headers, body, signal: controller.signal, redirect: 'manual' });
      status = response.status;
      retryAfter = response.headers.get('retry-after');
      await drain(response);
    } catch (thrown) {
      if (controller.signal.reason instanceof Stopping) {
        await this.store.release(delivery.pk, this.#owner);
        return;
      }
      error = controller.signal.aborted ? String((controller.signal.reason as Error)?.message ?? 'aborted') : describe(thrown);
    } finally {
      clearTimeout(timeout);
      this.#aborts.delete(controller);
    }
    const latencyMs = Math.round(performance.now() - started);
    // What the receiver answered is recorded once the database is back, so a delivered one is not sent again.
    const record = (attempt: Parameters<WebhooksStore['recordAttempt']>[1]) => retryWhileUnavailable(() => this.store.recordAttempt(delivery, attempt), () => this.#stopped);
    if (status !== null && status >= 200 && status < 300) {
      await record({ at, status, latencyMs, error, headers, next: { status: 'delivered' } });
      return;
    }
    if (status !== null) error = `the receiver answered HTTP ${status}`;
    const honoured = status === 429 || status === 503 ? parseRetryAfter(retryAfter, nowMs) : undefined;
    const delay = retryDelay(delivery.attempts + 1, this.options.random, honoured);
    const gone = status === 410 ? `the receiver answered 410 Gone at ${isoSeconds(at)}` : undefined;
    await record({
      at,
      status,
      latencyMs,
      error: gone ? `${error}; endpoint disabled` : error,
      headers,
      next: delay === null ? { status: 'failed' } : { status: 'pending', at: at + delay },
      disableEndpoint: gone,
    });
  }
}

/** The body of a delivery as sent at `at`: the stored `data` set in its envelope, without parsing it again. */
export function envelope(delivery: Pick<DeliveryRow, 'id' | 'event' | 'domain' | 'client_ref' | 'data'>, at: number): string {
  return `{"webhookId":${JSON.stringify(delivery.id)},"event":${JSON.stringify(delivery.event)},"timestamp":"${isoSeconds(at)}","domain":${JSON.stringify(delivery.domain)},"clientRef":${JSON.stringify(delivery.client_ref)},"data":${delivery.data}}`;
}

/**
 * Reads and drops an answer's body, so the connection can carry the next delivery; a body over
 * 64 KiB is cut off instead (the connection then closes), so a receiver cannot make us hold much.
 */
async function drain(response: Response): Promise<void> {
  const reader = response.body?.getReader();
  if (!reader) return;
  let read = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.byteLength;
      if (read > 64 * 1024) {
        await reader.cancel();
        return;
      }
    }
  } catch {
    // A body cut off mid-way changes nothing: the status is what counts.
  }
}

/** A fetch failure in a few words: its cause's code when the runtime gives one (ECONNREFUSED…). */
function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  const base = error instanceof Error ? error.message : String(error);
  return cause?.code ? `${base} (${cause.code})` : cause?.message ? `${base}: ${cause.message}` : base;
}
