import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Receiver } from '../webhooks/receiver.ts';
import { startServers, stopAll, type ServeProcess } from '../support/processes.ts';
import { adminCaller, answerOf, sleep, type Answer } from '../support/polling.ts';
import { ThrowawayCluster } from '../support/throwaway-cluster.ts';

/**
 * Three API processes on a PostgreSQL cluster of the test's own, under concurrent load, while an
 * operator terminates their backends, then stops the server for a while and starts it again.
 * No process exits, every request is answered (the error envelope meanwhile), service comes back
 * by itself, and an export and webhook deliveries in flight finish.
 */

const ADMIN_TOKEN = 'database-outage-admin-token';
const PEOPLE = 40;
/** Generous bounds: a request must never hang, and service must come back without a restart. */
const REQUEST_BOUND_MS = 15_000;
const RECOVERY_BOUND_MS = 10_000;

/** Twenty clients reading pages from the three processes in turn until told to stop. */
class Load {
  readonly answers: (Answer & { phase: string })[] = [];
  phase = 'before';
  #stopped = false;
  #workers: Promise<void>[] = [];

  constructor(
    private readonly servers: ServeProcess[],
    private readonly key: string,
  ) {}

  start(width = 20): void {
    this.#workers = Array.from({ length: width }, (_, w) => this.#work(w));
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.all(this.#workers);
  }

  async #work(worker: number): Promise<void> {
    for (let i = worker; !this.#stopped; i++) {
      const phase = this.phase;
      const server = this.servers[i % this.servers.length]!;
      const answer = await answerOf(`${server.url}/v1/people?limit=100`, { headers: { 'x-api-key': this.key } }, REQUEST_BOUND_MS);
      this.answers.push({ phase, ...answer });
      if (answer.status === 0) await sleep(20);
    }
  }
}

const admin = adminCaller(ADMIN_TOKEN);

/** Polls until `server` answers a page with 200; how long that took. */
async function untilServing(server: ServeProcess, key: string): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (!server.process.running) throw new Error(`${server.process.name} ended:\n${server.process.output()}`);
    const reply = await fetch(`${server.url}/v1/people?limit=1`, { headers: { 'x-api-key': key }, signal: AbortSignal.timeout(REQUEST_BOUND_MS) });
    await reply.arrayBuffer();
    if (reply.status === 200) return Date.now() - started;
    if (Date.now() - started > RECOVERY_BOUND_MS) throw new Error(`${server.url} still answers ${reply.status} ${RECOVERY_BOUND_MS} ms after the database came back`);
    await sleep(25);
  }
}

describe('three API processes on a PostgreSQL server that drops their connections and restarts', () => {
  let cluster: ThrowawayCluster;
  let dir: string;
  let servers: ServeProcess[] = [];
  let receiver: Receiver;

  beforeAll(async () => {
    cluster = await ThrowawayCluster.create();
    dir = mkdtempSync(join(tmpdir(), 'vi-outage-'));
    receiver = await Receiver.start();
    const args = ['--db', cluster.url(), '--seed', '7', '--people', String(PEOPLE), '--anchor', '2026-11-20T12:00:00Z', '--admin-token', ADMIN_TOKEN, '--rate-limit', '1000000', '--export-step-delay', '1500'];
    servers = await startServers(3, 'outage', args, { dir });
  }, 180_000);

  afterAll(async () => {
    await stopAll(servers, 'SIGKILL');
    await receiver?.close();
    await cluster?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('keeps every process serving through terminated backends and a restart, and finishes the work in flight', async () => {
    const key = servers[0]!.keys.accountKey;
    const load = new Load(servers, key);
    load.start();
    await sleep(1000);

    // An operator ends every backend of the database while twenty clients read.
    load.phase = 'terminated';
    expect(await cluster.terminateBackends()).toBeGreaterThan(0);
    await sleep(1000);
    for (const server of servers) await untilServing(server, key);

    // Work in flight when the server goes away: deliveries to a receiver that answers slowly, and an export.
    receiver.fallback = { status: 204, delayMs: 300 };
    expect((await admin(servers[0]!, '/accounts/acc_demo/webhooks', { url: receiver.url, events: ['person.identified'] })).status).toBe(200);
    const domain = servers[0]!.keys.scopedKeys[0]!.domain;
    const now = Date.now();
    const loaded = Array.from({ length: 12 }, (_, i) => ({ id: `per_outage_${i}`, email: `outage${i}@mail.example`, visits: [{ domain, visitCount: 1, firstSeen: new Date(now - 3_600_000).toISOString(), lastSeen: new Date(now - 60_000).toISOString() }] }));
    expect((await admin(servers[1]!, '/accounts/acc_demo/people', loaded)).status).toBe(200);
    const exportStart = await fetch(`${servers[2]!.url}/v1/exports`, { method: 'POST', headers: { 'x-api-key': key } });
    expect(exportStart.status).toBe(202);
    const { jobId } = (await exportStart.json()) as { jobId: string };

    // The server stops for a few seconds, then starts again.
    load.phase = 'down';
    await cluster.stop();
    await sleep(4000);
    load.phase = 'restarting';
    await cluster.start();
    const recovery = await Promise.all(servers.map((server) => untilServing(server, key)));
    load.phase = 'after';
    await sleep(1000);
    await load.stop();

    // No process exited.
    for (const server of servers) expect(server.process.running, server.process.output()).toBe(true);
    expect(recovery.every((ms) => ms <= RECOVERY_BOUND_MS)).toBe(true);

    // Every request got an answer: a page, or the error envelope with a request id and Retry-After.
    expect(load.answers.filter((a) => a.status === 0)).toEqual([]);
    for (const answer of load.answers) {
      expect(answer.requestId).toMatch(/^req_[0-9a-f]{32}$/);
      if (answer.status !== 200) expect([answer.status, answer.code, answer.retryAfter]).toEqual([500, 'internal_error', '1']);
    }
    expect(load.answers.filter((a) => a.phase === 'down' && a.status === 500).length).toBeGreaterThan(0);
    expect(load.answers.filter((a) => a.phase === 'after').every((a) => a.status === 200)).toBe(true);

    // The export started before the outage completes with every person.
    const deadline = Date.now() + 60_000;
    let job: { status: string; rowCount?: number; error?: string } = { status: 'processing' };
    while (job.status === 'processing' && Date.now() < deadline) {
      await sleep(250);
      job = (await (await fetch(`${servers[2]!.url}/v1/exports/${jobId}`, { headers: { 'x-api-key': key } })).json()) as typeof job;
    }
    expect(job).toMatchObject({ status: 'complete', rowCount: PEOPLE + loaded.length });

    // Each person loaded before the outage was announced to the receiver.
    const announced = async () => new Set(receiver.received.filter((r) => r.json?.event === 'person.identified').map((r) => r.json.data.person.id as string));
    while ((await announced()).size < loaded.length && Date.now() < deadline) await sleep(250);
    expect([...(await announced())].sort()).toEqual(loaded.map((p) => p.id).sort());

    // Each process logs an outage in a line or two, never a stack trace per query.
    for (const server of servers) {
      const output = server.process.output();
      expect(output, output).not.toMatch(/^\s+at /m);
      expect(output.match(/PostgreSQL unavailable/g)?.length ?? 0, output).toBeLessThanOrEqual(2);
      expect(output.match(/PostgreSQL available again/g)?.length ?? 0, output).toBeLessThanOrEqual(2);
    }
  }, 180_000);
});
