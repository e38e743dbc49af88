import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor } from '../support/client.ts';

interface KeysFile {
  baseUrl: string;
  accountKey: string;
  scopedKeys: { domain: string; clientRef: string | null; key: string }[];
}

const dir = mkdtempSync(join(tmpdir(), 'vi-serve-'));
const db = join(dir, 'demo.sqlite');
const keysPath = join(dir, 'keys.json');

/** Starts `scripts/cli.ts serve` as `npm start` does, and resolves once the keys file is written. */
async function start(args: string[], env: Record<string, string> = {}): Promise<{ child: ChildProcess; output: () => string; keys: KeysFile }> {
  rmSync(keysPath, { force: true });
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/cli.ts', 'serve', '--db', db, '--keys-out', keysPath, ...args], {
    env: { ...process.env, CI: 'true', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const deadline = Date.now() + 60_000;
  while (!existsSync(keysPath) || !output.includes('Keys written')) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${output}`);
    if (Date.now() > deadline) throw new Error(`server did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, output: () => output, keys: JSON.parse(readFileSync(keysPath, 'utf8')) };
}

/** Sends a signal and resolves with the exit code. */
function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill(signal);
  });
}

/** A client of a running server. */
const clientAt = (baseUrl: string) => clientFor((path, init) => fetch(baseUrl + path, init));

describe('npm start (scripts/cli.ts serve)', () => {
  let first: Awaited<ReturnType<typeof start>>;

  beforeAll(async () => {
    first = await start(['--port', '0', '--people', '120', '--seed', '7']);
  }, 90_000);
  afterAll(() => {
    first?.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('seeds a new database, takes a free port for --port 0 and writes the real baseUrl and the keys', () => {
    expect(first.output()).toMatch(/Seeded 9 sites, \d+ companies, 120 people and \d+ events/);
    expect(first.keys.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(first.keys.baseUrl).not.toMatch(/:0$/);
    expect(first.output()).toContain(first.keys.baseUrl);
    expect(first.keys.accountKey).toMatch(/^vi_live_[0-9a-f]{40}$/);
    expect(first.keys.scopedKeys.length).toBe(9);
    expect(existsSync(`${db}.seeding`)).toBe(false);
  });

  it('serves every endpoint through every page with the written keys', async () => {
    const { baseUrl, accountKey, scopedKeys } = first.keys;
    const client = clientAt(baseUrl);
    expect((await client.get('/v1/health')).status).toBe(200);
    const { rows: people } = await client.walk('/v1/people', accountKey);
    expect(people).toHaveLength(120);
    const { rows: companies } = await client.walk('/v1/companies', accountKey);
    expect(companies.length).toBeGreaterThan(0);
    const longest = people.reduce((a, b) => (b.visitCount > a.visitCount ? b : a));
    const { rows: events } = await client.walk(`/v1/people/${longest.id}/events`, accountKey);
    expect(events.length).toBeGreaterThan(0);
    for (const path of [`/v1/people/${longest.id}`, `/v1/companies/${companies[0].id}`, '/v1/stats']) {
      expect((await client.get(path, accountKey)).status, path).toBe(200);
    }
    let seenByScoped = 0;
    for (const scoped of scopedKeys) {
      const { rows } = await client.walk('/v1/people', scoped.key);
      // A key reads its domain and its subdomains (Acme's key reads the shop too).
      expect(rows.every((p) => p.domain === scoped.domain || p.domain.endsWith(`.${scoped.domain}`)), scoped.domain).toBe(true);
      seenByScoped += rows.length;
    }
    expect(seenByScoped).toBeGreaterThanOrEqual(120);
  });

  it('shuts down cleanly on SIGTERM, leaving an intact database', async () => {
    expect(await stop(first.child, 'SIGTERM')).toBe(0);
    const sqlite = new BetterSqlite3(db, { readonly: true });
    expect(sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(sqlite.prepare('select count(*) as n from people').get()).toEqual({ n: 120 });
    sqlite.close();
  });

  it('reuses the database on the next start, honours PORT, and prints keys that still work', async () => {
    const again = await start(['--people', '999'], { PORT: '0' });
    try {
      expect(again.output()).not.toContain('Seeded');
      expect(again.output()).toContain('Reusing');
      expect(again.keys.accountKey).toBe(first.keys.accountKey);
      const { rows: people } = await clientAt(again.keys.baseUrl).walk('/v1/people', again.keys.accountKey);
      expect(people).toHaveLength(120);
    } finally {
      expect(await stop(again.child, 'SIGINT')).toBe(0);
    }
  }, 90_000);

  it('rejects an unknown flag in one line, exit code 2', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/cli.ts', 'serve', '--bogus'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(err).toContain("error: unknown option '--bogus'");
  });
});
