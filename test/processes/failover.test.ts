import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCsv, personFromCsv } from '../support/csv.ts';
import { PgBouncer } from '../support/pgbouncer.ts';
import { startServe, stopAll, type ServeProcess } from '../support/processes.ts';
import { Replication, query } from '../support/standby.ts';
import { ThrowawayCluster } from '../support/throwaway-cluster.ts';
import { Receiver } from '../webhooks/receiver.ts';
import { adminCaller, answerOf, send as sendJson, sleep, until, type Answer } from '../support/polling.ts';

/**
 * A failover under load: three `serve` processes of the built bin reach a primary with a
 * synchronous streaming standby only through PgBouncer. While clients read pages, load people
 * whose webhook deliveries go to a real receiver, and an export runs, the primary crashes; the
 * standby is promoted and PgBouncer pointed at it, as an operator (or a failover tool) does.
 * No process exits, every request is answered (the error envelope meanwhile), service comes back
 * without a restart, and no accepted export or delivery is lost or done twice.
 */

const ADMIN_TOKEN = 'failover-admin-token';
const SCHEMA = 'vi_failover';
const PEOPLE = 40;
const RATE_LIMIT = 100_000;
/** Generous bounds: a request must never hang, and service must come back without a restart. */
const REQUEST_BOUND_MS = 15_000;
const RECOVERY_BOUND_MS = 30_000;

type Phase = 'before' | 'down' | 'promoted' | 'after';

/**
 * Clients of the three processes in turn until told to stop: readers of people pages, and
 * loaders that each load two new people a call into `acc_hooks`, sending a call again after an
 * error until it is accepted (a load that went through is a no-op the second time). Every answer
 * is kept with the phase it was sent in.
 */
class Traffic {
  readonly answers: (Answer & { phase: Phase; what: string })[] = [];
  /** People whose load was answered 200, and the phase of that answer. */
  readonly accepted = new Map<string, Phase>();
  phase: Phase = 'before';
  #stopped = false;
  #abandoned = false;
  #clients: Promise<void>[] = [];

  constructor(
    private readonly servers: ServeProcess[],
    private readonly key: string,
    private readonly domain: string,
  ) {}

  start(readers: number, loaders: number): void {
    this.#clients = [...Array.from({ length: readers }, (_, r) => this.#read(r)), ...Array.from({ length: loaders }, (_, l) => this.#load(l))];
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.all(this.#clients);
  }

  /** Stops every client at once, loads not yet accepted too (a test that failed). */
  abandon(): void {
    this.#stopped = this.#abandoned = true;
  }

  async #send(what: string, server: ServeProcess, path: string, init: RequestInit): Promise<number> {
    const phase = this.phase;
    const answer = await answerOf(`${server.url}${path}`, init, REQUEST_BOUND_MS);
    this.answers.push({ phase, what, ...answer });
    return answer.status;
  }

  async #read(reader: number): Promise<void> {
    for (let i = reader; !this.#stopped; i++) {
      const status = await this.#send('page', this.servers[i % this.servers.length]!, '/v1/people?limit=100', { headers: { 'x-api-key': this.key } });
      if (status !== 200) await sleep(50);
    }
  }

  async #load(loader: number): Promise<void> {
    for (let n = 0, i = loader; !this.#stopped; n++) {
      const ids = [0, 1].map((k) => `per_fo_${loader}_${n}_${k}`);
      const now = Date.now();
      const people = ids.map((id) => ({ id, email: `${id}@mail.example`, visits: [{ domain: this.domain, visitCount: 1, firstSeen: new Date(now - 3_600_000).toISOString(), lastSeen: new Date(now - 60_000).toISOString() }] }));
      const body = JSON.stringify(people);
      // Sent until accepted, even past stop(): a call that got the envelope is the client's to repeat.
      for (const deadline = Date.now() + RECOVERY_BOUND_MS; ; i++) {
        const status = await this.#send('load', this.servers[i % this.servers.length]!, '/_admin/accounts/acc_hooks/people', { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body });
        if (status === 200) {
          for (const id of ids) this.accepted.set(id, this.phase);
          break;
        }
        if (Date.now() > deadline || this.#abandoned) return;
        await sleep(100);
      }
    }
  }
}

/** A call bounded in time: a hang is a failure of its own, not a stalled test. */
const send = (url: string, init: RequestInit = {}) => sendJson(url, { ...init, signal: AbortSignal.timeout(REQUEST_BOUND_MS) });

const admin = adminCaller(ADMIN_TOKEN, REQUEST_BOUND_MS);

/** Polls until `server` answers a page with 200. */
async function untilServing(server: ServeProcess, key: string): Promise<void> {
  await until(async () => {
    if (!server.process.running) throw new Error(`${server.process.name} ended:\n${server.process.output()}`);
    return (await send(`${server.url}/v1/people?limit=1`, { headers: { 'x-api-key': key } })).status === 200 ? true : undefined;
  }, RECOVERY_BOUND_MS, `${server.process.name} to serve after the failover`);
}

describe('three API processes behind PgBouncer through a failover to a synchronous standby', () => {
  let primary: ThrowawayCluster | undefined;
  let standby: ThrowawayCluster | undefined;
  let bouncer: PgBouncer | undefined;
  let receiver: Receiver | undefined;
  let dir: string | undefined;
  let servers: ServeProcess[] = [];
  let traffic: Traffic | undefined;

  beforeAll(async () => {
    primary = await ThrowawayCluster.create();
    await query(primary, `create schema ${SCHEMA}`);
    standby = await ThrowawayCluster.standbyOf(primary);
    await new Replication(primary, standby).synchronous();
    // PgBouncer tries a server that refused it again after server_login_retry: lowered, so the promoted standby is found sooner.
    bouncer = await PgBouncer.start({ serverUrl: primary.url(), poolSize: 6, settings: { server_login_retry: 1 } });
    receiver = await Receiver.start();
    // Slow enough that deliveries are in flight when the primary goes.
    receiver.fallback = { status: 204, delayMs: 200 };
    dir = mkdtempSync(join(tmpdir(), 'vi-failover-'));
    const db = bouncer.url('vi', { schema: SCHEMA, pgbouncer: 'true' });
    const args = ['--db', db, '--seed', '7', '--people', String(PEOPLE), '--anchor', '2026-11-20T12:00:00Z', '--admin-token', ADMIN_TOKEN, '--rate-limit', String(RATE_LIMIT), '--export-step-delay', '1500'];
    // The first migrates and seeds; the other two start once it serves.
    servers = [await startServe('api-1', args, { dir })];
    servers.push(...(await Promise.all([startServe('api-2', args, { dir }), startServe('api-3', args, { dir })])));
  }, 180_000);

  afterAll(async () => {
    traffic?.abandon();
    // Each step on its own, so one that fails leaves none of the others running.
    const steps: (() => Promise<unknown> | undefined)[] = [() => stopAll(servers, 'SIGKILL'), () => bouncer?.stop(), () => receiver?.close(), () => standby?.drop(), () => primary?.drop()];
    for (const step of steps) await Promise.resolve().then(step).catch((error) => console.error(error));
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('keeps every process answering, serves again from the promoted standby, and loses or repeats no accepted work', async () => {
    const [api1, api2, api3] = servers as [ServeProcess, ServeProcess, ServeProcess];
    const key = api1.keys.accountKey;
    const domain = 'hooks.example';
    expect((await admin(api1, '/accounts', { id: 'acc_hooks', name: 'Hooks' })).status).toBe(200);
    expect((await admin(api2, '/accounts/acc_hooks/sites', { domain })).status).toBe(200);
    const endpoint = (await admin(api3, '/accounts/acc_hooks/webhooks', { url: receiver!.url, events: ['person.identified'] })).body.data;
    expect((await admin(api1, '/accounts', { id: 'acc_budget', name: 'Budget' })).status).toBe(200);
    const budgetKey = (await admin(api2, '/accounts/acc_budget/keys', {})).body.data.key as string;
    const remaining = async () => {
      const reply = await send(`${api3.url}/v1/companies?limit=1`, { headers: { 'x-api-key': budgetKey } });
      expect(reply.status).toBe(200);
      return Number(reply.headers.get('x-ratelimit-remaining'));
    };

    traffic = new Traffic(servers, key, domain);
    traffic.start(12, 3);
    await until(async () => (receiver!.received.length >= 6 ? true : undefined), RECOVERY_BOUND_MS, 'the first deliveries');
    for (let i = 1; i <= 5; i++) expect(await remaining()).toBe(RATE_LIMIT - i);
    const started = await send(`${api3.url}/v1/exports`, { method: 'POST', headers: { 'x-api-key': key } });
    expect(started.status).toBe(202);
    const jobId = started.body.jobId as string;

    // Just before the primary goes: a receiver slow to answer holds deliveries across the failover,
    // and a load's deliveries wait in the outbox.
    receiver!.fallback = { status: 204, delayMs: 1500 };
    const last = ['per_fo_last_0', 'per_fo_last_1', 'per_fo_last_2', 'per_fo_last_3'];
    const lastSeen = new Date(Date.now() - 60_000).toISOString();
    const lastLoad = last.map((id) => ({ id, email: `${id}@mail.example`, visits: [{ domain, visitCount: 1, firstSeen: lastSeen, lastSeen }] }));
    expect((await admin(api1, '/accounts/acc_hooks/people', lastLoad)).status).toBe(200);
    for (const id of last) traffic.accepted.set(id, 'before');
    expect((await send(`${api2.url}/v1/exports/${jobId}`, { headers: { 'x-api-key': key } })).body.status).toBe('processing');

    // The primary fails; a moment later the standby is promoted and PgBouncer pointed at it.
    traffic.phase = 'down';
    await primary!.crash();
    receiver!.fallback = { status: 204, delayMs: 200 };
    await sleep(1000);
    await standby!.promote();
    traffic.phase = 'promoted';
    await bouncer!.retarget(standby!.url());
    for (const server of servers) await untilServing(server, key);
    traffic.phase = 'after';
    await sleep(1500);
    await traffic.stop();

    // No process exited, and every request got an answer: a page, or the envelope with Retry-After.
    for (const server of servers) expect(server.process.running, server.process.output()).toBe(true);
    expect(traffic.answers.filter((a) => a.status === 0)).toEqual([]);
    for (const answer of traffic.answers) {
      expect(answer.requestId).toMatch(/^req_[0-9a-f]{32}$/);
      if (answer.status !== 200) expect([answer.status, answer.code, answer.retryAfter]).toEqual([500, 'internal_error', '1']);
    }
    expect(traffic.answers.filter((a) => a.phase !== 'after' && a.status === 500).length).toBeGreaterThan(0);
    expect(traffic.answers.filter((a) => a.phase === 'after').every((a) => a.status === 200)).toBe(true);

    // The export started before the failover completes once, its file holding every person once.
    const job = await until(async () => {
      const polled = await send(`${api1.url}/v1/exports/${jobId}`, { headers: { 'x-api-key': key } });
      return polled.status === 200 && polled.body.status !== 'processing' ? polled.body : undefined;
    }, 60_000, 'the export');
    expect(job).toMatchObject({ status: 'complete', rowCount: PEOPLE, partial: false });
    const file = await fetch(job.downloadUrl.replace(/^http:\/\/[^/]+/, api2.url));
    expect(file.status).toBe(200);
    const people = (await send(`${api2.url}/v1/people?limit=100`, { headers: { 'x-api-key': key } })).body.data;
    expect((await parseCsv(await file.text())).rows.map(personFromCsv)).toEqual(people);
    expect(await query(standby!, `select count(*)::int as n from ${SCHEMA}.export_jobs where account_id = 'acc_demo'`)).toEqual([{ n: 1 }]);

    // Every person accepted is on the new primary, and announced once: one webhook-id each, received.
    expect(traffic.accepted.size).toBeGreaterThan(0);
    const stored = await query<{ id: string }>(standby!, `select id from ${SCHEMA}.people where account_id = 'acc_hooks'`);
    expect(new Set(stored.map((p) => p.id))).toEqual(new Set(traffic.accepted.keys()));
    await until(async () => ((await query<{ n: number }>(standby!, `select count(*)::int as n from ${SCHEMA}.webhook_deliveries where endpoint_id = $1 and status <> 'delivered'`, [endpoint.id]))[0]!.n === 0 ? true : undefined), 60_000, 'every delivery');
    const written = await query<{ id: string; person: string }>(standby!, `select id, data::json->'person'->>'id' as person from ${SCHEMA}.webhook_deliveries where endpoint_id = $1`, [endpoint.id]);
    expect(written.map((w) => w.person).sort()).toEqual([...traffic.accepted.keys()].sort());
    const idsByPerson = new Map<string, Set<string>>();
    for (const got of receiver!.received) idsByPerson.set(got.json.data.person.id, (idsByPerson.get(got.json.data.person.id) ?? new Set()).add(got.headers['webhook-id']!));
    expect(new Set(receiver!.received.map((r) => r.headers['webhook-id']))).toEqual(new Set(written.map((w) => w.id)));
    expect([...idsByPerson.values()].filter((ids) => ids.size > 1)).toEqual([]);

    // The rate-limit windows are unlogged, so none reached the standby: the budget started afresh.
    expect(await remaining()).toBe(RATE_LIMIT - 1);

    // Each process logged the outage in a line or two, never a stack trace per query.
    for (const server of servers) {
      const output = server.process.output();
      expect(output, output).not.toMatch(/^\s+at /m);
      expect(output.match(/PostgreSQL unavailable/g)?.length ?? 0, output).toBeGreaterThan(0);
      expect(output.match(/PostgreSQL unavailable/g)?.length ?? 0, output).toBeLessThanOrEqual(2);
      expect(output.match(/PostgreSQL available again/g)?.length ?? 0, output).toBeLessThanOrEqual(2);
    }
  }, 180_000);
});
