import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { RUNTIMES, runtimeCommand, type Runtime } from '../../scripts/runtime-command.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_ASSETS } from '../../core/console/assets.ts';
import { runConformance } from '../../harness/index.ts';
import { MOUNT_HEADER } from '../../core/http/mount.ts';
import { clientFor, errorCode, runExport } from '../support/client.ts';
import { createApi } from '../../adapters/node/index.ts';

/**
 * The same demo server under Node, Bun and Deno, walked end to end over real HTTP. Node seeds
 * one database file and every runtime serves a copy of it, so a file made by one runtime must
 * open in the others.
 */
type RuntimeName = Runtime;

interface Keys {
  baseUrl: string;
  accountKey: string;
  scopedKeys: { domain: string; clientRef: string | null; key: string }[];
  adminToken: string;
}

const dir = mkdtempSync(join(tmpdir(), 'vi-runtimes-'));
const seeded = join(dir, 'seeded-by-node.sqlite');
const PEOPLE = 120;

/** Starts the demo server under a runtime on a free port; resolves with its keys once it listens. */
async function startServer(runtime: RuntimeName, db: string, extra: string[] = []): Promise<{ child: ChildProcess; keys: Keys; output: () => string }> {
  const keysPath = `${db}.keys.json`;
  rmSync(keysPath, { force: true });
  const [command, ...args] = runtimeCommand(runtime, 'scripts/serve.ts');
  const child = spawn(command!, [...args, '--port', '0', '--db', db, '--seed', '7', '--people', String(PEOPLE), '--anchor', '2026-11-20T12:00:00Z', '--keys-out', keysPath, ...extra], {
    env: { ...process.env, CI: 'true', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const deadline = Date.now() + 90_000;
  while (!(existsSync(keysPath) && output.includes('Keys written'))) {
    if (child.exitCode !== null) throw new Error(`${runtime} server exited early:\n${output}`);
    if (Date.now() > deadline) throw new Error(`${runtime} server did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, keys: JSON.parse(readFileSync(keysPath, 'utf8')), output: () => output };
}

function stopServer(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((done) => {
    child.once('exit', (code) => done(code));
    child.kill(signal);
  });
}

beforeAll(async () => {
  const { child } = await startServer('node', seeded);
  expect(await stopServer(child)).toBe(0);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each([...RUNTIMES])('the demo server under %s', (runtime) => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let client: ReturnType<typeof clientFor>;

  beforeAll(async () => {
    const db = join(dir, `${runtime}.sqlite`);
    copyFileSync(seeded, db);
    server = await startServer(runtime, db);
    client = clientFor((path, init) => fetch(server.keys.baseUrl + path, init));
  }, 120_000);
  afterAll(async () => {
    if (server) await stopServer(server.child, 'SIGKILL');
  });

  /** Every row of a list, in pages of 37. */
  const walk = async (path: string, key: string) => (await client.walk(path, key, 37)).rows;

  it('opens the database another runtime made and reuses it', () => {
    expect(server.output()).toContain(`(${runtime})`);
    expect(server.output()).not.toContain('Seeded');
  });

  it('answers health without a key, 401 without one elsewhere and 403 for a bad one, each with a unique X-Request-Id', async () => {
    const replies = [await client.get('/v1/health'), await client.get('/v1/people'), await client.get('/v1/people', `vi_live_${'0'.repeat(40)}`), await client.get('/v1/nope', server.keys.accountKey)];
    expect(replies.map((r) => r.status)).toEqual([200, 401, 403, 404]);
    expect(replies.slice(1).map(errorCode)).toEqual(['unauthorized', 'forbidden', 'not_found']);
    const ids = replies.map((r) => r.headers.get('x-request-id'));
    expect(new Set(ids).size).toBe(4);
  });

  it('serves the console byte for byte as the core does in-process, from the link it prints', async () => {
    const link = /(http:\/\/\S+\/_console\/)#token=(\S+)/.exec(server.output());
    expect(link?.[2]).toBe(encodeURIComponent(server.keys.adminToken));
    const page = await fetch(link![1]!);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await page.text();
    expect(html).toBe(CONSOLE_ASSETS['index.html']!.body);
    const script = /app-[0-9a-f]{16}\.js/.exec(html)![0];
    expect(await (await fetch(`${link![1]}${script}`)).text()).toBe(CONSOLE_ASSETS[script]!.body);
  });

  it('drops a client’s own x-forwarded-prefix: the API stays at the root', async () => {
    const evil = { [MOUNT_HEADER]: '/evil' };
    const health = await client.get('/v1/health', undefined, evil);
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'ok' });
    const people = await client.get('/v1/people?limit=5', server.keys.accountKey, evil);
    expect(people.status).toBe(200);
    expect(people.body.data).toHaveLength(5);
    // Nor does the header open the API under the client's prefix.
    const moved = await client.get('/evil/v1/people', server.keys.accountKey, evil);
    expect([moved.status, errorCode(moved)]).toEqual([404, 'not_found']);
  });

  it('walks every person and company exactly once, newest first, with rate-limit headers counting down', async () => {
    const people = await walk('/v1/people', server.keys.accountKey);
    expect(people).toHaveLength(PEOPLE);
    expect(new Set(people.map((p) => p.id)).size).toBe(PEOPLE);
    expect(people.every((p, i) => i === 0 || people[i - 1].lastSeen >= p.lastSeen)).toBe(true);
    const companies = await walk('/v1/companies', server.keys.accountKey);
    expect(companies.length).toBeGreaterThan(0);
    const a = await client.get('/v1/stats', server.keys.accountKey);
    const b = await client.get('/v1/stats', server.keys.accountKey);
    expect(Number(b.headers.get('x-ratelimit-remaining'))).toBe(Number(a.headers.get('x-ratelimit-remaining')) - 1);
    expect(a.body.data.totalPeople).toBe(PEOPLE);
  });

  it('serves people pages byte for byte as the core does in-process under Node, in every view', async () => {
    const db = join(dir, `${runtime}.sqlite`);
    const local = await createApi({ database: db });
    try {
      const acme = server.keys.scopedKeys.find((k) => k.domain === 'acme-example.com')!;
      const shop = server.keys.scopedKeys.find((k) => k.domain === 'shop.acme-example.com')!;
      const pages: [string, string][] = [
        ['/v1/people?limit=100', server.keys.accountKey],
        ['/v1/people?limit=100&domain=acme-example.com', server.keys.accountKey],
        ['/v1/people?limit=100', acme.key],
        ['/v1/people?limit=100', shop.key],
      ];
      // Up to the pagination, whose cursor carries the moment it was signed.
      const dataOf = (text: string) => text.slice(0, text.indexOf('],"pagination":'));
      for (const [path, key] of pages) {
        const served = await (await fetch(server.keys.baseUrl + path, { headers: { 'x-api-key': key } })).text();
        const inProcess = await (await local.fetch(new Request(`http://local${path}`, { headers: { 'x-api-key': key } }))).text();
        expect(dataOf(served).length, path).toBeGreaterThan(1000);
        expect(dataOf(served), path).toBe(dataOf(inProcess));
      }
    } finally {
      await local.close();
    }
  });

  it('walks the longest journey newest first and rejects a tampered cursor', async () => {
    const people = await walk('/v1/people', server.keys.accountKey);
    const traveller = people.reduce((x, y) => (y.visitCount > x.visitCount ? y : x));
    const events = await walk(`/v1/people/${traveller.id}/events`, server.keys.accountKey);
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e, i) => i === 0 || events[i - 1].timestamp >= e.timestamp)).toBe(true);
    const first = await client.get(`/v1/companies?limit=2`, server.keys.accountKey);
    // The signature's last hex digit changed (overwriting it with a fixed 'ff' left one cursor in 256 as it was).
    const cursor: string = first.body.pagination.nextCursor;
    const tampered = cursor.slice(0, -1) + (cursor.endsWith('0') ? '1' : '0');
    const bad = await client.get(`/v1/companies?limit=2&cursor=${encodeURIComponent(tampered)}`, server.keys.accountKey);
    expect([bad.status, errorCode(bad)]).toEqual([400, 'invalid_cursor']);
  });

  it('keeps each domain-scoped key inside its domain and its subdomains', async () => {
    const everyone = await walk('/v1/people', server.keys.accountKey);
    // The demo's Acme site, its shop on a subdomain, and a look-alike that is neither.
    const keyOf = (domain: string) => server.keys.scopedKeys.find((k) => k.domain === domain)!;
    const [acme, shop, lookAlike] = [keyOf('acme-example.com'), keyOf('shop.acme-example.com'), keyOf('badacme-example.com')];
    const mine = await walk('/v1/people', acme!.key);
    expect(new Set(mine.map((p) => p.domain))).toEqual(new Set([acme!.domain, shop!.domain]));
    const outsider = everyone.find((p) => !mine.some((m) => m.id === p.id))!;
    expect((await client.get(`/v1/people/${outsider.id}`, acme!.key)).status).toBe(404);
    const narrowed = await walk(`/v1/people?domain=${shop!.domain}`, acme!.key);
    expect(narrowed.length).toBeGreaterThan(0);
    expect(narrowed.every((p) => p.domain === shop!.domain)).toBe(true);
    expect((await client.get(`/v1/people?domain=${lookAlike!.domain}`, acme!.key)).body.data).toEqual([]);
    expect((await walk('/v1/people', shop!.key)).every((p) => p.domain === shop!.domain)).toBe(true);
    const exportTry = await client.send('POST', '/v1/exports', acme!.key);
    expect([exportTry.status, errorCode(exportTry)]).toEqual([403, 'scope_not_supported']);
  });

  it('runs an export to complete and streams the CSV through its key-less link', async () => {
    const { started, job, file, csv } = await runExport(client, server.keys.accountKey, { isHotLead: true }, { pollMs: 100, timeoutMs: 30_000 });
    expect(started.status).toBe(202);
    expect(job).toMatchObject({ jobId: started.body.jobId, status: 'complete', downloadUrlExpiresInSeconds: 900, partial: false });
    expect(job.createdAt).toMatch(/\+00:00$/);
    // The link is the server's own: fetched as given, it is the file runExport read.
    expect(job.downloadUrl.startsWith(`${server.keys.baseUrl}/v1/exports/${started.body.jobId}/download?`)).toBe(true);
    expect(file.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.rows).toHaveLength(job.rowCount);
    expect(csv.rows.every((r) => r.isHotLead === 'true')).toBe(true);
  });

  it('passes every non-destructive check of the conformance harness', async () => {
    const report = await runConformance({ baseUrl: server.keys.baseUrl, accountKey: server.keys.accountKey, scopedKeys: server.keys.scopedKeys.slice(0, 3) });
    const failed = report.results.filter((r) => r.verdict === 'failed').map((r) => `${r.id}: ${r.detail}`);
    expect(failed, failed.join('\n')).toEqual([]);
    expect(report.totals.passed).toBeGreaterThan(60);
  }, 120_000);

  it('shuts down cleanly on SIGTERM, leaving a consistent database', async () => {
    expect(await stopServer(server.child, 'SIGTERM')).toBe(0);
    const file = new BetterSqlite3(join(dir, `${runtime}.sqlite`), { readonly: true });
    expect(file.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(file.prepare('select count(*) as n from people').get()).toEqual({ n: PEOPLE });
    file.close();
  });
});

describe('a database seeded under Deno', () => {
  it('holds exactly what the same seed gives under Node', async () => {
    const db = join(dir, 'seeded-by-deno.sqlite');
    const { child } = await startServer('deno', db);
    expect(await stopServer(child)).toBe(0);
    const dump = (path: string) => {
      const file = new BetterSqlite3(path, { readonly: true });
      const rows = {
        people: file.prepare('select id, email, last_seen, visit_count, crm_status from people order by id').all(),
        events: file.prepare('select event_id, ts, body from events order by event_id').all(),
      };
      file.close();
      return rows;
    };
    const [deno, node] = [dump(db), dump(seeded)];
    expect(deno.people).toHaveLength(PEOPLE);
    expect(deno.people).toEqual(node.people);
    expect(deno.events.length).toBe(node.events.length);
    expect(deno.events).toEqual(node.events);
  }, 120_000);
});
