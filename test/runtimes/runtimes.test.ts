import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { RUNTIMES, runtimeCommand, type Runtime } from '../../scripts/runtime-command.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformance } from '../../harness/index.ts';
import { parseCsv } from '../support/csv.ts';

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
  let get: (path: string, key?: string) => Promise<{ status: number; headers: Headers; body: any }>;

  beforeAll(async () => {
    const db = join(dir, `${runtime}.sqlite`);
    copyFileSync(seeded, db);
    server = await startServer(runtime, db);
    get = async (path, key) => {
      const res = await fetch(`${server.keys.baseUrl}${path}`, { headers: key ? { 'x-api-key': key } : {} });
      return { status: res.status, headers: res.headers, body: await res.json() };
    };
  }, 120_000);
  afterAll(async () => {
    if (server) await stopServer(server.child, 'SIGKILL');
  });

  const walk = async (path: string, key: string) => {
    const rows: any[] = [];
    let cursor: string | undefined;
    do {
      const sep = path.includes('?') ? '&' : '?';
      const reply = await get(`${path}${sep}limit=37${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, key);
      expect(reply.status, path).toBe(200);
      rows.push(...reply.body.data);
      cursor = reply.body.pagination.nextCursor;
    } while (cursor);
    return rows;
  };

  it('opens the database another runtime made and reuses it', () => {
    expect(server.output()).toContain(`(${runtime})`);
    expect(server.output()).not.toContain('Seeded');
  });

  it('answers health without a key, 401 without one elsewhere and 403 for a bad one, each with a unique X-Request-Id', async () => {
    const replies = [await get('/v1/health'), await get('/v1/people'), await get('/v1/people', `vi_live_${'0'.repeat(40)}`), await get('/v1/nope', server.keys.accountKey)];
    expect(replies.map((r) => r.status)).toEqual([200, 401, 403, 404]);
    expect(replies.slice(1).map((r) => r.body.error.code)).toEqual(['unauthorized', 'forbidden', 'not_found']);
    const ids = replies.map((r) => r.headers.get('x-request-id'));
    expect(new Set(ids).size).toBe(4);
  });

  it('walks every person and company exactly once, newest first, with rate-limit headers counting down', async () => {
    const people = await walk('/v1/people', server.keys.accountKey);
    expect(people).toHaveLength(PEOPLE);
    expect(new Set(people.map((p) => p.id)).size).toBe(PEOPLE);
    expect(people.every((p, i) => i === 0 || people[i - 1].lastSeen >= p.lastSeen)).toBe(true);
    const companies = await walk('/v1/companies', server.keys.accountKey);
    expect(companies.length).toBeGreaterThan(0);
    const a = await get('/v1/stats', server.keys.accountKey);
    const b = await get('/v1/stats', server.keys.accountKey);
    expect(Number(b.headers.get('x-ratelimit-remaining'))).toBe(Number(a.headers.get('x-ratelimit-remaining')) - 1);
    expect(a.body.data.totalPeople).toBe(PEOPLE);
  });

  it('walks the longest journey newest first and rejects a tampered cursor', async () => {
    const people = await walk('/v1/people', server.keys.accountKey);
    const traveller = people.reduce((x, y) => (y.visitCount > x.visitCount ? y : x));
    const events = await walk(`/v1/people/${traveller.id}/events`, server.keys.accountKey);
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e, i) => i === 0 || events[i - 1].timestamp >= e.timestamp)).toBe(true);
    const first = await get(`/v1/companies?limit=2`, server.keys.accountKey);
    const bad = await get(`/v1/companies?limit=2&cursor=${encodeURIComponent(first.body.pagination.nextCursor.slice(0, -2) + 'ff')}`, server.keys.accountKey);
    expect([bad.status, bad.body.error.code]).toEqual([400, 'invalid_cursor']);
  });

  it('keeps each domain-scoped key inside its site', async () => {
    const everyone = await walk('/v1/people', server.keys.accountKey);
    const [first, second] = server.keys.scopedKeys;
    const mine = await walk('/v1/people', first!.key);
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((p) => p.domain === first!.domain)).toBe(true);
    const outsider = everyone.find((p) => !mine.some((m) => m.id === p.id))!;
    expect((await get(`/v1/people/${outsider.id}`, first!.key)).status).toBe(404);
    expect((await get(`/v1/people?domain=${second!.domain}`, first!.key)).body.data).toEqual([]);
    const exportTry = await fetch(`${server.keys.baseUrl}/v1/exports`, { method: 'POST', headers: { 'x-api-key': first!.key } });
    expect(exportTry.status).toBe(403);
  });

  it('runs an export to complete and streams the CSV through its key-less link', async () => {
    const started = await fetch(`${server.keys.baseUrl}/v1/exports`, {
      method: 'POST',
      headers: { 'x-api-key': server.keys.accountKey, 'content-type': 'application/json' },
      body: JSON.stringify({ isHotLead: true }),
    });
    expect(started.status).toBe(202);
    const { jobId, statusUrl } = await started.json();
    let job: any;
    for (let i = 0; i < 300; i++) {
      job = (await get(statusUrl, server.keys.accountKey)).body;
      if (job.status !== 'processing') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(job).toMatchObject({ jobId, status: 'complete', downloadUrlExpiresInSeconds: 900, partial: false });
    expect(job.createdAt).toMatch(/\+00:00$/);
    const file = await fetch(job.downloadUrl);
    expect(file.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const csv = await parseCsv(await file.text());
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
