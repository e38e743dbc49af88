import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATION_NAMES } from '../../core/store/migrations.ts';
import { parseCsv, personFromCsv } from '../support/csv.ts';
import { PgBouncer } from '../support/pgbouncer.ts';
import { startServe, stopAll, type ServeProcess } from '../support/processes.ts';
import { ThrowawayCluster } from '../support/throwaway-cluster.ts';
import { Receiver } from '../webhooks/receiver.ts';
import { adminCaller, inParallel, send, until } from '../support/polling.ts';
import { expectEachDeliveredOnce, loadThroughEach } from '../support/deliveries.ts';

/**
 * The whole API behind a real PgBouncer in transaction mode: three `serve` processes of the built
 * bin reach a PostgreSQL server of the test's own (so its log is the test's alone) only through
 * Debian's PgBouncer, their URL choosing the schema and unnamed statements with
 * `?schema=…&pgbouncer=true`. PgBouncer before 1.21 keeps no named statement and before 1.20
 * refuses the `options` startup parameter; every statement of every transaction may reach another
 * server connection than the one before.
 */

const ADMIN_TOKEN = 'pgbouncer-admin-token';
const SCHEMA = 'vi_behind_pgbouncer';
const PEOPLE = 40;
const RATE_LIMIT = 400;

const admin = adminCaller(ADMIN_TOKEN);

/** A GET with the account key, answered 200: its body. */
async function get(server: ServeProcess, path: string): Promise<any> {
  const reply = await send(`${server.url}${path}`, { headers: { 'x-api-key': server.keys.accountKey } });
  expect(reply.status, path).toBe(200);
  return reply.body;
}

/** Every item of a list, walking its cursor with `limit`, each page asked of the next server in turn. */
async function walk(servers: ServeProcess[], list: string, limit: number): Promise<any[]> {
  const items: any[] = [];
  for (let page = 0, cursor: string | undefined; ; page++) {
    const body = await get(servers[page % servers.length]!, `/v1/${list}?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    items.push(...body.data);
    cursor = body.pagination.nextCursor;
    if (!cursor) return items;
  }
}

describe('three API processes behind PgBouncer in transaction mode', () => {
  let cluster: ThrowawayCluster;
  let bouncer: PgBouncer;
  let dir: string;
  let servers: ServeProcess[] = [];
  let inspector: pg.Pool;
  const count = async (query: string) => Number((await inspector.query<{ n: string }>(query)).rows[0]!.n);

  beforeAll(async () => {
    cluster = await ThrowawayCluster.create();
    const owner = new pg.Client({ connectionString: cluster.url() });
    await owner.connect();
    await owner.query(`create schema ${SCHEMA}`);
    await owner.end();
    // Read beside the API, straight from the server.
    inspector = new pg.Pool({ connectionString: cluster.url(), options: `-c search_path=${SCHEMA}`, max: 1 });
    bouncer = await PgBouncer.start({ serverUrl: cluster.url() });
    dir = mkdtempSync(join(tmpdir(), 'vi-pgbouncer-apis-'));
    const db = bouncer.url('vi', { schema: SCHEMA, pgbouncer: 'true' });
    const args = ['--db', db, '--seed', '7', '--people', String(PEOPLE), '--anchor', '2026-11-20T12:00:00Z', '--admin-token', ADMIN_TOKEN, '--rate-limit', String(RATE_LIMIT)];
    // The first migrates the empty schema and seeds it; the other two start together while it
    // serves. (Processes creating the migration tables at the same moment make the server log a
    // unique violation that one of them then ignores: startup, not traffic.)
    servers = [await startServe('api-1', args, { dir })];
    servers.push(...(await Promise.all([startServe('api-2', args, { dir }), startServe('api-3', args, { dir })])));
  }, 180_000);

  afterAll(async () => {
    await stopAll(servers, 'SIGKILL');
    await bouncer?.stop();
    await inspector?.end();
    await cluster?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('migrates and seeds the schema named in the URL once, and every process serves the same keys', async () => {
    expect(servers.map((s) => s.process.output()).filter((o) => /Seeded 9 sites, \d+ companies, 40 people/.test(o))).toHaveLength(1);
    for (const s of servers.slice(1)) expect(s.keys.accountKey).toBe(servers[0]!.keys.accountKey);
    expect((await inspector.query<{ name: string }>('select name from kysely_migration order by name')).rows.map((r) => r.name)).toEqual([...MIGRATION_NAMES]);
    expect(await count('select count(*) as n from people')).toBe(PEOPLE);
    // Every table in the schema, none where the server's default search path would have put them.
    expect(await count(`select count(*) as n from information_schema.tables where table_schema = 'public'`)).toBe(0);
    expect(await count(`select count(*) as n from information_schema.tables where table_schema = '${SCHEMA}'`)).toBeGreaterThan(15);
  });

  it('serves every page of people and companies, each cursor followed on another process than the one that signed it', async () => {
    const people = await walk(servers, 'people', 7);
    expect(people.map((p) => p.id)).toEqual((await walk(servers.slice(0, 1), 'people', 100)).map((p) => p.id));
    expect(new Set(people.map((p) => p.id)).size).toBe(PEOPLE);
    const companies = await walk(servers, 'companies', 3);
    expect(companies).toEqual(await walk(servers.slice(0, 1), 'companies', 100));
    expect(companies.length).toBeGreaterThan(3);
    expect((await get(servers[2]!, `/v1/people/${people[5].id}`)).data).toEqual(people[5]);
    const journey = await walk(servers, `people/${people[5].id}/events`, 5);
    expect(journey.length).toBeGreaterThan(0);
  });

  it('runs an export to completion, and its file downloads whole through another process', async () => {
    const started = await send(`${servers[0]!.url}/v1/exports`, { method: 'POST', headers: { 'x-api-key': servers[0]!.keys.accountKey } });
    expect(started.status).toBe(202);
    const job = await until(async () => {
      const polled = await get(servers[1]!, `/v1/exports/${started.body.jobId}`);
      return polled.status === 'processing' ? undefined : polled;
    }, 60_000, 'the export');
    expect(job).toMatchObject({ status: 'complete', rowCount: PEOPLE, partial: false });
    const file = await fetch(job.downloadUrl.replace(/^http:\/\/[^/]+/, servers[2]!.url));
    expect(file.status).toBe(200);
    const csv = await parseCsv(await file.text());
    expect(csv.rows.map(personFromCsv)).toEqual(await walk(servers.slice(0, 1), 'people', 100));
  });

  it(`answers exactly ${RATE_LIMIT} requests of one key between them, each remaining count once, and refuses the rest with 429`, async () => {
    expect((await admin(servers[0]!, '/accounts', { id: 'acc_budget', name: 'Budget' })).status).toBe(200);
    const { key } = (await admin(servers[1]!, '/accounts/acc_budget/keys', {})).body.data;
    const replies = await inParallel(RATE_LIMIT + 60, 24, (i) => send(`${servers[i % 3]!.url}/v1/people?limit=1`, { headers: { 'x-api-key': key } }));
    const ok = replies.filter((r) => r.status === 200);
    expect([ok.length, replies.filter((r) => r.status === 429).length]).toEqual([RATE_LIMIT, 60]);
    expect(ok.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((a, b) => a - b)).toEqual(Array.from({ length: RATE_LIMIT }, (_, i) => i));
    for (const r of replies.filter((r) => r.status === 429)) expect(r.body.error).toMatchObject({ code: 'rate_limit_exceeded', status: 429 });
  });

  it('delivers each webhook of loads made through all three exactly once, signed, to a real receiver', async () => {
    const receiver = await Receiver.start();
    receiver.fallback = { status: 204, delayMs: 5 };
    try {
      const endpoint = (await admin(servers[2]!, '/accounts/acc_demo/webhooks', { url: receiver.url, events: ['person.identified', 'person.activity'] })).body.data;
      await loadThroughEach(servers, admin, 'pgb', 8, servers[0]!.keys.scopedKeys.map((k) => k.domain));
      const written = (await inspector.query<{ id: string }>('select id from webhook_deliveries where endpoint_id = $1', [endpoint.id])).rows;
      // person.identified and person.activity for each of the 24 people on each of their two sites.
      expect(written).toHaveLength(96);
      const pending = () => count(`select count(*) as n from webhook_deliveries where endpoint_id = '${endpoint.id}' and status <> 'delivered'`);
      await expectEachDeliveredOnce(receiver, written.map((w) => w.id), endpoint.secret, pending);
    } finally {
      await receiver.close();
    }
  }, 120_000);

  it('puts the data back as it was at start on an admin reset, new keys numbered past the restored ones', async () => {
    const reset = await send(`${servers[0]!.url}/_admin/reset`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect([reset.status, reset.body.data.reset]).toEqual([200, true]);
    expect(await count('select count(*) as n from people')).toBe(PEOPLE);
    expect(await count(`select count(*) as n from accounts where id = 'acc_budget'`)).toBe(0);
    expect((await admin(servers[0]!, '/accounts', { id: 'acc_after_reset', name: 'After' })).status).toBe(200);
    expect((await admin(servers[1]!, '/accounts/acc_after_reset/keys', {})).status).toBe(200);
  });

  it('each stop cleanly on SIGTERM', async () => {
    expect(await stopAll(servers, 'SIGTERM')).toEqual(Array(3).fill({ code: 0, signal: null }));
  });

  it('leave no error in the PostgreSQL server log, nor in PgBouncer\'s', () => {
    const serverLog = readFileSync(cluster.logFile, 'utf8');
    expect(serverLog).toMatch(/database system is ready to accept connections/);
    expect(serverLog.split('\n').filter((line) => /\b(ERROR|FATAL|PANIC|WARNING):/.test(line))).toEqual([]);
    expect(bouncer.log().split('\n').filter((line) => /\b(ERROR|FATAL|WARNING)\b/.test(line))).toEqual([]);
  });
});
