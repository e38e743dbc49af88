import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createApi } from '../../adapters/node/index.ts';
import { oneLine, runBin } from '../cli/bin.ts';

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
