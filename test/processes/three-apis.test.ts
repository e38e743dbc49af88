import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Receiver } from '../webhooks/receiver.ts';
import { startServers, stopAll, type ServeProcess } from '../support/processes.ts';
import { SHARED_DATABASES, sqliteFile, type Inspector } from '../support/shared-database.ts';
import { adminCaller, inParallel, send } from '../support/polling.ts';
import { expectEachDeliveredOnce, loadThroughEach } from '../support/deliveries.ts';

/**
 * Three API processes (the built bin's `serve`) on one database, as behind a load balancer:
 * started at the same moment on an empty database, they share one rate-limit budget, one
 * three-exports limit and one webhook outbox. On a SQLite file always; on a PostgreSQL server
 * (a schema of its own) when VI_TEST_POSTGRES_URL names one.
 */

const ADMIN_TOKEN = 'three-processes-admin-token';
const PEOPLE = 40;
/** Every export step waits this long, so the jobs accepted stay running for the whole file. */
const HOLD_EXPORTS_MS = 600_000;

const admin = adminCaller(ADMIN_TOKEN);

describe.each(SHARED_DATABASES)('three API processes on one database: $name', (database) => {
  let dir: string;
  let servers: ServeProcess[] = [];
  let inspector: Inspector;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vi-three-apis-'));
    const { db, inspect } = await database.open(dir);
    // All three at the same moment, on a database that does not exist yet (or an empty schema).
    const args = ['--db', db, '--seed', '7', '--people', String(PEOPLE), '--anchor', '2026-11-20T12:00:00Z', '--admin-token', ADMIN_TOKEN, '--export-step-delay', String(HOLD_EXPORTS_MS)];
    servers = await startServers(3, 'api', args, { dir });
    inspector = inspect();
  }, 180_000);

  afterAll(async () => {
    await stopAll(servers, 'SIGKILL');
    await inspector?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('start together on the empty database: one seeds it once, the others wait, and all three serve the same keys', async () => {
    const outputs = servers.map((s) => s.process.output());
    expect(outputs.filter((o) => /Seeded 9 sites, \d+ companies, 40 people/.test(o))).toHaveLength(1);
    for (const s of servers.slice(1)) expect(s.keys.accountKey).toBe(servers[0]!.keys.accountKey);
    for (const s of servers.slice(1)) expect(s.keys.scopedKeys).toEqual(servers[0]!.keys.scopedKeys);
    expect(servers[0]!.keys.scopedKeys).toHaveLength(9);
    expect(await inspector.count('select count(*) from accounts')).toBe(1);
    expect(await inspector.count('select count(*) from people')).toBe(PEOPLE);
    // One key per site and one for the account, none issued twice by processes racing.
    expect(await inspector.count('select count(*) from api_keys')).toBe(10);
    const migrations = await inspector.rows<{ name: string }>('select name from kysely_migration order by name');
    expect(new Set(migrations.map((m) => m.name)).size).toBe(migrations.length);
    expect(migrations.map((m) => m.name)).toContain('0001_initial');
    if (database === sqliteFile) {
      // Nothing left of the seeding beside the database (its WAL files aside) but the keys files.
      expect(readdirSync(dir).filter((f) => !/^demo\.sqlite(-wal|-shm)?$|\.keys\.json$/.test(f))).toEqual([]);
    }
  });

  it('answer exactly 1,000 of 1,400 account requests between them, each count once, and the other 400 with 429 in the envelope', async () => {
    const key = servers[0]!.keys.accountKey;
    const replies = await inParallel(1400, 24, (i) => send(`${servers[i % 3]!.url}/v1/people?limit=1`, { headers: { 'x-api-key': key } }));
    const ok = replies.filter((r) => r.status === 200);
    const refused = replies.filter((r) => r.status === 429);
    expect([ok.length, refused.length]).toEqual([1000, 400]);
    // Every remaining count from 999 down to 0 handed out once: no two processes counted the same request.
    expect(ok.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((a, b) => a - b)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    for (const r of refused) {
      expect(r.body).toEqual({ error: { code: 'rate_limit_exceeded', message: expect.stringMatching(/^Hourly request limit of 1000 reached; retry after \d+ seconds\.$/), status: 429 } });
      expect(r.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // Each process refused some: they share one budget rather than each counting its own.
    expect(new Set(replies.map((r, i) => (r.status === 429 ? i % 3 : -1)).filter((p) => p >= 0)).size).toBe(3);
  });

  it('run at most three exports of an account between them: a fourth is refused whichever process receives it', async () => {
    // An account of its own, so the demo account's spent budget does not answer first.
    expect((await admin(servers[0]!, '/accounts', { id: 'acc_exports', name: 'Exports' })).status).toBe(200);
    const { key } = (await admin(servers[1]!, '/accounts/acc_exports/keys', {})).body.data;
    const start = (server: ServeProcess) => send(`${server.url}/v1/exports`, { method: 'POST', headers: { 'x-api-key': key } });

    const burst = await Promise.all(Array.from({ length: 9 }, (_, i) => start(servers[i % 3]!)));
    expect(burst.filter((r) => r.status === 202)).toHaveLength(3);
    const refused = burst.filter((r) => r.status !== 202);
    expect(refused.map((r) => [r.status, r.body.error.code])).toEqual(Array(6).fill([429, 'too_many_exports']));

    for (const server of servers) {
      const fourth = await start(server);
      expect([fourth.status, fourth.body.error?.code]).toEqual([429, 'too_many_exports']);
      expect(fourth.body.error.message).toBe('3 exports are already running for this account; wait for one to finish.');
    }
    // The jobs are shared: each process reports each one as running.
    for (const accepted of burst.filter((r) => r.status === 202)) {
      for (const server of servers) {
        const job = await send(`${server.url}/v1/exports/${accepted.body.jobId}`, { headers: { 'x-api-key': key } });
        expect([job.status, job.body.status]).toEqual([200, 'processing']);
      }
    }
    expect(await inspector.count(`select count(*) from export_jobs where account_id = 'acc_exports' and status = 'processing'`)).toBe(3);
  });

  it('deliver each webhook of loads made through all three exactly once, signed, whichever process sends it', async () => {
    const receiver = await Receiver.start();
    // A little latency, so the processes' claims overlap while requests are out.
    receiver.fallback = { status: 204, delayMs: 5 };
    try {
      const endpoint = (await admin(servers[2]!, '/accounts/acc_demo/webhooks', { url: receiver.url, events: ['person.identified', 'person.activity'] })).body.data;
      // 20 new people per process, each seen on two demo sites, with an event on each site.
      await loadThroughEach(servers, admin, 'three', 20, servers[0]!.keys.scopedKeys.map((k) => k.domain));
      const written = await inspector.rows<{ id: string }>(`select id from webhook_deliveries where endpoint_id = '${endpoint.id}'`);
      // person.identified and person.activity for each of the 60 people on each of their two sites.
      expect(written).toHaveLength(240);
      const pending = () => inspector.count(`select count(*) from webhook_deliveries where endpoint_id = '${endpoint.id}' and status <> 'delivered'`);
      await expectEachDeliveredOnce(receiver, written.map((w) => w.id), endpoint.secret, pending);
      expect(await inspector.count(`select count(*) from webhook_attempts a join webhook_deliveries d on d.pk = a.delivery_pk where d.endpoint_id = '${endpoint.id}'`)).toBe(written.length);
    } finally {
      await receiver.close();
    }
  }, 120_000);

  it('each stop cleanly on SIGTERM, the exports they hold included', async () => {
    const ended = await stopAll(servers, 'SIGTERM');
    expect(ended).toEqual(Array(3).fill({ code: 0, signal: null }));
    // The jobs stay running for the next start to resume.
    expect(await inspector.count(`select count(*) from export_jobs where status = 'processing'`)).toBe(3);
  });
});
