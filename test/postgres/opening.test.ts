import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createApi } from '../../adapters/node/index.ts';
import { oneLine, runBin, startBin, stop } from '../cli/bin.ts';

/** A loopback port nothing listens on: taken, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('opening PostgreSQL', () => {
  let unreachable: string;
  let dir: string;

  beforeAll(async () => {
    unreachable = `postgres://vi:hunter2@127.0.0.1:${await closedPort()}/nowhere`;
    dir = mkdtempSync(join(tmpdir(), 'vi-pg-open-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses an unreachable server at createApi, naming it without its password', async () => {
    const error = await createApi({ database: unreachable }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^cannot connect to PostgreSQL at postgres:\/\/vi:\*\*\*@127\.0\.0\.1:\d+\/nowhere: /);
    expect((error as Error).message).not.toContain('hunter2');
  });

  it('makes serve --db postgres://… with no server one line and exit 2, creating no postgres: folder', async () => {
    const ran = await runBin(['serve', '--db', unreachable, '--port', '0'], { cwd: dir });
    expect(ran.code).toBe(2);
    expect(oneLine(ran.stderr)).toMatch(/cannot connect to PostgreSQL at postgres:\/\/vi:\*\*\*@127\.0\.0\.1:\d+\/nowhere/);
    expect(ran.stderr + ran.stdout).not.toContain('hunter2');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses a URL parameter of the API\'s own with a value it cannot use, naming the parameter, before connecting', async () => {
    const bouncer = await createApi({ database: `${unreachable}?pgbouncer=yes` }).catch((e: unknown) => e);
    expect((bouncer as Error).message).toBe('the URL parameter pgbouncer must be true or false, not "yes"');
    const schema = await createApi({ database: `${unreachable}?schema=` }).catch((e: unknown) => e);
    expect((schema as Error).message).toMatch(/^the URL parameter schema names no schema/);
    const ran = await runBin(['serve', '--db', `${unreachable}?schema=visitors&pgbouncer=1`, '--port', '0'], { cwd: dir });
    expect(ran.code).toBe(2);
    expect(oneLine(ran.stderr)).toContain('the PostgreSQL database of --db cannot be used: the URL parameter pgbouncer must be true or false, not "1"');
    expect(ran.stderr).not.toContain('hunter2');
  });

  it('takes the database from DATABASE_URL when serve has no --db', async () => {
    const ran = await runBin(['serve', '--port', '0'], { cwd: dir, env: { DATABASE_URL: unreachable } });
    expect(ran.code).toBe(2);
    expect(oneLine(ran.stderr)).toMatch(/cannot connect to PostgreSQL at postgres:\/\/vi:\*\*\*@127\.0\.0\.1:\d+\/nowhere/);
    expect(readdirSync(dir)).toEqual([]);
  });
});

const serverUrl = process.env.VI_TEST_POSTGRES_URL;

// With a server (VI_TEST_POSTGRES_URL): a URL opens a pool of the API's own, which close() ends.
describe.each(serverUrl ? [serverUrl] : [])('createApi over a postgres:// URL (%s)', (url) => {
  const database = `vi_open_${process.pid}`;
  const admin = () => new pg.Client({ connectionString: url });

  beforeAll(async () => {
    const client = admin();
    await client.connect();
    await client.query(`drop database if exists ${database}`);
    await client.query(`create database ${database}`);
    await client.end();
  });
  afterAll(async () => {
    const client = admin();
    await client.connect();
    await client.query(`drop database if exists ${database} with (force)`);
    await client.end();
  });

  it('migrates, answers, and on close leaves no connection open', async () => {
    const target = new URL(url);
    target.pathname = `/${database}`;
    const api = await createApi({ database: target.toString() });
    await api.admin.createAccount({ id: 'acc_a', name: 'A' });
    const { key } = await api.admin.issueAccountKey('acc_a');
    const reply = await api.fetch(new Request('http://api.test/v1/stats', { headers: { 'x-api-key': key } }));
    expect(reply.status).toBe(200);
    await api.close();
    const client = admin();
    await client.connect();
    const { rows } = await client.query<{ n: string }>('select count(*)::text as n from pg_stat_activity where datname = $1', [database]);
    await client.end();
    expect(rows[0]!.n).toBe('0');
  });
});

/** The demo as `serve` seeds it: the same seed, size and anchor give the same data and keys. */
const DEMO = ['--seed', '7', '--people', '60', '--anchor', '2026-11-20T00:00:00Z', '--port', '0'];

interface Served {
  child: ChildProcess;
  url: string;
  keys: { accountKey: string; scopedKeys: { key: string }[] };
}

async function serve(db: string, dir: string, name: string): Promise<Served> {
  const keysOut = join(dir, `${name}.json`);
  const { child, output } = await startBin(['serve', '--db', db, '--keys-out', keysOut, ...DEMO], /listening on http:\/\/\S+/, { cwd: dir });
  const url = /listening on (http:\/\/\S+)/.exec(output())![1]!;
  // The keys file is written just after the server listens.
  while (!existsSync(keysOut)) await new Promise((resolve) => setTimeout(resolve, 50));
  return { child, url, keys: JSON.parse(readFileSync(keysOut, 'utf8')) };
}

/** Every item of a list, page by page, as the JSON text of each page's data (cursors differ: each database has its own secret). */
async function walk(served: Served, key: string, path: string): Promise<string[]> {
  const pages: string[] = [];
  let next: string | null = path;
  while (next) {
    const reply = await fetch(`${served.url}${next}`, { headers: { 'x-api-key': key } });
    const body = (await reply.json()) as { data: unknown; pagination?: { nextCursor?: string | null } };
    // A company none of whose people was seeded carries the moment it was loaded (the seeding's
    // wall clock, not the anchor), which differs between the two seedings by a second or so.
    pages.push(`${reply.status} ${JSON.stringify(body.data)}`.replace(/"visitCount":0,"firstSeen":"[^"]+","lastSeen":"[^"]+"/g, '"visitCount":0,"firstSeen":"(loaded)","lastSeen":"(loaded)"'));
    const cursor = body.pagination?.nextCursor;
    next = cursor ? `${path}${path.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}` : null;
  }
  return pages;
}

// With a server (VI_TEST_POSTGRES_URL): the demo server from the built bin answers the same on both backends.
describe.each(serverUrl ? [serverUrl] : [])('serve --db postgres://… against serve --db file.sqlite (%s)', (url) => {
  const database = `vi_serve_${process.pid}`;
  let dir: string;
  let sqlite: Served;
  let postgres: Served;

  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vi-serve-same-'));
    await admin(`drop database if exists ${database} with (force)`);
    await admin(`create database ${database}`);
    const target = new URL(url);
    target.pathname = `/${database}`;
    [sqlite, postgres] = await Promise.all([serve(join(dir, 'demo.sqlite'), dir, 'sqlite'), serve(target.toString(), dir, 'postgres')]);
  }, 180_000);
  afterAll(async () => {
    for (const served of [sqlite, postgres]) if (served) await stop(served.child);
    await admin(`drop database if exists ${database} with (force)`);
    rmSync(dir, { recursive: true, force: true });
  });

  it('seeds the same demo and its keys into the Postgres database', () => {
    expect(postgres.keys.accountKey).toBe(sqlite.keys.accountKey);
    expect(postgres.keys.scopedKeys.map((k) => k.key)).toEqual(sqlite.keys.scopedKeys.map((k) => k.key));
  });

  it('reuses the seeded Postgres database on the next start, naming it without its password', async () => {
    const target = new URL(url);
    target.pathname = `/${database}`;
    target.password = 'hunter2'; // the test server trusts loopback: the password is not checked
    const again = await startBin(['serve', '--db', target.toString(), '--seed', '8', '--people', '60', '--port', '0'], /listening on http:\/\/\S+/, { cwd: dir });
    await stop(again.child);
    expect(again.output()).toMatch(/Reusing postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:5432\/vi_serve_\d+ \(seed 7, 60 people\)/);
    expect(again.output()).not.toContain('hunter2');
  });

  it('answers every page of people, companies and a journey the same, under the account key and each scoped key', async () => {
    const keys = [sqlite.keys.accountKey, ...sqlite.keys.scopedKeys.map((k) => k.key)];
    const [first] = JSON.parse((await walk(sqlite, sqlite.keys.accountKey, '/v1/people?limit=1'))[0]!.slice(4)) as { id: string }[];
    const paths = ['/v1/people?limit=25', '/v1/people?limit=10&hotLeadsOnly=true', '/v1/companies?limit=7', `/v1/people/${first!.id}/events?limit=40`, `/v1/people/${first!.id}`];
    for (const key of keys) {
      for (const path of paths) expect(await walk(postgres, key, path), path).toEqual(await walk(sqlite, key, path));
    }
  });
});
