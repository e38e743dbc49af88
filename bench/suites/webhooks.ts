/**
 * Webhooks: how fast the dispatcher sends, how long a load takes to reach a receiver while the API
 * serves reads, and how much memory a million events cost on their way out. The API and its
 * dispatcher run in this process (as in a server); the receiver runs in its own
 * (bench/servers/webhook-receiver.ts) and answers 200 at once, so the figures are the sender's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApi, type Api, type EventInput, type PersonInput } from '../../adapters/node/index.ts';
import type { CaseResult, SuiteResult } from '../results.ts';
import { percentiles } from '../results.ts';
import { ownResident } from '../resident-memory.ts';
import { UNLIMITED } from '../servers/api-options.ts';
import { ROOT, startServer, stopAll, type ChildServer } from '../servers/control.ts';
import type { Receipt } from '../servers/webhook-receiver.ts';
import type { SuiteOptions } from './suite.ts';

const ACCOUNT = 'acc_hooks';
const SITE = { domain: 'alpha.example', clientRef: 'alpha' };

/** Sizes: deliveries sent in the throughput case, people to read and load batches in the latency case, events in the memory case. */
const FULL = { deliveries: 20_000, readable: 500, batches: 300, batchGapMs: 20, readers: 2, events: 1_000_000 };
const TINY = { deliveries: 200, readable: 50, batches: 20, batchGapMs: 10, readers: 1, events: 5_000 };
/** Events per person in the memory case: the default per-delivery cap, so each delivery carries a full batch. */
const EVENTS_PER_PERSON = 100;
/** Events per loadEvents call in the memory case, as the demo seeds them. */
const EVENT_BATCH = 5_000;

export async function webhooksSuite(options: Pick<SuiteOptions, 'tiny' | 'onCase'>): Promise<SuiteResult> {
  const size = options.tiny ? TINY : FULL;
  const dir = mkdtempSync(join(tmpdir(), 'vi-bench-hooks-'));
  let receiver: ChildServer | undefined;
  try {
    receiver = await startServer('webhook receiver', [process.execPath, '--import', 'tsx', join(ROOT, 'bench/servers/webhook-receiver.ts')]);
    const inbox = new Inbox(receiver.url);
    options.onCase?.(`${size.deliveries} deliveries`);
    const throughput = await sendOutbox(join(dir, 'throughput.sqlite'), `${receiver.url}/hooks`, inbox, size.deliveries);
    options.onCase?.(`load-to-receipt latency, ${size.batches} loads`);
    const latency = await loadToReceipt(join(dir, 'latency.sqlite'), `${receiver.url}/hooks`, inbox, size);
    options.onCase?.(`memory, ${size.events} events`);
    const memory = await millionEvents(join(dir, 'memory.sqlite'), `${receiver.url}/hooks`, inbox, size.events);
    return {
      suite: 'webhooks',
      title: 'Webhooks: sending to a local receiver (another process, answering 200 at once)',
      cases: [throughput, ...latency, memory],
      targets: [],
    };
  } finally {
    await stopAll([receiver]);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What the receiver process noted, collected as it comes. */
class Inbox {
  receipts: Receipt[] = [];
  constructor(private readonly url: string) {}

  /** Collects the notes until `count` deliveries (in all) arrived; fails after `timeoutMs` without progress. */
  async until(count: number, timeoutMs = 120_000): Promise<Receipt[]> {
    let last = performance.now();
    while (this.receipts.length < count) {
      const got = await this.#take();
      if (got.length > 0) last = performance.now();
      else if (performance.now() - last > timeoutMs) throw new Error(`the receiver got ${this.receipts.length} of ${count} deliveries, then nothing for ${timeoutMs / 1000} s`);
      this.receipts.push(...got);
      if (this.receipts.length < count) await new Promise((r) => setTimeout(r, 25));
    }
    return this.receipts;
  }

  /** Forgets what was collected. */
  async clear(): Promise<void> {
    await this.#take();
    this.receipts = [];
  }

  /** The receiver's new notes; a kept-alive connection the receiver closed meanwhile is retried once on a new one. */
  async #take(): Promise<Receipt[]> {
    try {
      return (await (await fetch(`${this.url}/received`)).json()) as Receipt[];
    } catch {
      return (await (await fetch(`${this.url}/received`)).json()) as Receipt[];
    }
  }
}

async function openHooked(file: string, background: boolean, url: string, events: ('person.identified' | 'person.activity')[]): Promise<Api> {
  const api = await createApi({ database: file, rateLimits: UNLIMITED, webhooks: { background }, onError: (e) => console.error(e) });
  await api.admin.createAccount({ id: ACCOUNT, name: 'Bench partner' });
  await api.admin.registerSite(ACCOUNT, SITE);
  await api.admin.webhooks.create(ACCOUNT, { url, events });
  return api;
}

function people(prefix: string, count: number, atMs: number): PersonInput[] {
  const at = new Date(atMs).toISOString();
  return Array.from({ length: count }, (_, i) => ({ id: `per_${prefix}${i}`, email: `p${i}@partner.example`, visits: [{ domain: SITE.domain, visitCount: 1, firstSeen: at, lastSeen: at }] }));
}

function events(personId: string, count: number, atMs: number): EventInput[] {
  return Array.from({ length: count }, (_, i) => ({
    eventId: `evt_${personId.slice(4)}_${i}`,
    personId,
    sessionId: `ses_${personId.slice(4)}`,
    eventType: i % 5 === 4 ? 'click' : 'page_view',
    ...(i % 5 === 4 ? { clickElement: 'a.cta' } : { pageTitle: 'Pricing | Alpha' }),
    timestamp: new Date(atMs - (count - i) * 1000).toISOString(),
    url: `https://${SITE.domain}/pricing`,
    domain: SITE.domain,
  }));
}

/** Deliveries per second: an outbox of `count` person.identified deliveries sent by `deliverDue`. */
async function sendOutbox(file: string, url: string, inbox: Inbox, count: number): Promise<CaseResult> {
  const api = await openHooked(file, false, url, ['person.identified']);
  try {
    for (let i = 0; i < count; i += 1000) await api.admin.loadPeople(ACCOUNT, people(`t${i}_`, Math.min(1000, count - i), Date.now()));
    await inbox.clear();
    const started = performance.now();
    await api.webhooks.deliverDue();
    const seconds = (performance.now() - started) / 1000;
    await inbox.until(count);
    return { name: `deliveries sent from an outbox of ${count.toLocaleString('en')} (4 in flight per endpoint)`, role: 'ours', perSecond: count / seconds, unit: 'deliveries/s', samples: count, params: { deliveries: count } };
  } finally {
    await api.close();
  }
}

/**
 * Load-to-receipt: one person and five events loaded every few ms while readers walk people pages
 * through api.fetch; each delivery's latency runs from the start of the load call that wrote it
 * to its arrival at the receiver. The reads' own latency is reported beside it.
 */
async function loadToReceipt(file: string, url: string, inbox: Inbox, size: typeof FULL): Promise<CaseResult[]> {
  const api = await openHooked(file, true, url, ['person.identified', 'person.activity']);
  try {
    const key = (await api.admin.issueAccountKey(ACCOUNT)).key;
    // People to read, whose deliveries are out of the way before the measured loads.
    await inbox.clear();
    await api.admin.loadPeople(ACCOUNT, people('seed', size.readable, Date.now()));
    await inbox.until(size.readable);
    await inbox.clear();
    const loadedAt = new Map<string, number>();
    let loading = true;
    const reads: number[] = [];
    const reader = async () => {
      while (loading) {
        const started = performance.now();
        const res = await api.fetch(new Request('http://bench/v1/people?limit=50', { headers: { 'x-api-key': key } }));
        await res.text();
        if (res.status !== 200) throw new Error(`a read answered ${res.status}`);
        reads.push(performance.now() - started);
        // A read may complete without touching the event loop (SQLite answers synchronously):
        // yield, as a server between two requests does, so timers and sockets get their turn.
        await new Promise((r) => setImmediate(r));
      }
    };
    // Caught at once (and rethrown below), so a failing read never goes unhandled meanwhile.
    const readers = Array.from({ length: size.readers }, () => reader().then(() => undefined, (error: unknown) => error));
    for (let b = 0; b < size.batches; b++) {
      const id = `per_l${b}`;
      const now = () => performance.timeOrigin + performance.now();
      loadedAt.set(`person.identified ${id}`, now());
      await api.admin.loadPeople(ACCOUNT, people(`l${b}`, 1, Date.now()).map((p) => ({ ...p, id })));
      loadedAt.set(`person.activity ${id}`, now());
      await api.admin.loadEvents(ACCOUNT, events(id, 5, Date.now()));
      await new Promise((r) => setTimeout(r, size.batchGapMs));
    }
    const receipts = await inbox.until(size.batches * 2);
    loading = false;
    const failure = (await Promise.all(readers)).find((e) => e !== undefined);
    if (failure) throw failure;
    const latencies = receipts.map(([at, event, person]) => at - loadedAt.get(`${event} ${person}`)!);
    const params = { loads: size.batches, readers: size.readers };
    return [
      { name: `load-to-receipt, a person and 5 events every ${size.batchGapMs} ms while ${size.readers} reader(s) walk people pages`, role: 'ours', ...percentiles(latencies), samples: latencies.length, params },
      { name: `people pages (limit 50, api.fetch) meanwhile`, role: 'ours', ...percentiles(reads), samples: reads.length, params },
    ];
  } finally {
    await api.close();
  }
}

/**
 * Memory: `total` events (100 per person, so one full person.activity delivery each, plus their
 * person.identified) loaded in batches of 5,000 while the dispatcher sends; the peak growth of the
 * process's own resident memory (bench/resident-memory.ts) over its size before the first load,
 * until the last delivery arrived.
 */
async function millionEvents(file: string, url: string, inbox: Inbox, total: number): Promise<CaseResult> {
  const api = await openHooked(file, true, url, ['person.identified', 'person.activity']);
  let peak = 0;
  const sample = () => (peak = Math.max(peak, ownResident()));
  const sampler = setInterval(sample, 50);
  try {
    await inbox.clear();
    (globalThis as { gc?: () => void }).gc?.();
    const before = ownResident();
    peak = before;
    const started = performance.now();
    const perBatch = EVENT_BATCH / EVENTS_PER_PERSON;
    let persons = 0;
    for (let loaded = 0; loaded < total; loaded += EVENT_BATCH) {
      const batch = people(`m${persons}_`, perBatch, Date.now()).map((p, i) => ({ ...p, id: `per_m${persons + i}` }));
      await api.admin.loadPeople(ACCOUNT, batch);
      await api.admin.loadEvents(ACCOUNT, batch.flatMap((p) => events(p.id, EVENTS_PER_PERSON, Date.now())));
      persons += perBatch;
      sample();
    }
    const loadSeconds = (performance.now() - started) / 1000;
    await inbox.until(persons * 2, 300_000);
    const seconds = (performance.now() - started) / 1000;
    sample();
    return {
      name: `${total.toLocaleString('en')} events loaded and delivered (${(persons * 2).toLocaleString('en')} deliveries; loads took ${loadSeconds.toFixed(1)} s, the last delivery arrived at ${seconds.toFixed(1)} s)`,
      role: 'ours',
      perSecond: total / seconds,
      unit: 'events/s',
      peakMb: (peak - before) / 2 ** 20,
      samples: total,
      params: { events: total, deliveries: persons * 2, rssBeforeMb: Math.round(before / 2 ** 20) },
    };
  } finally {
    clearInterval(sampler);
    await api.close();
  }
}
