import { createServer, type Server } from 'node:net';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oneLine, runBin } from './bin.ts';

/** Startup mistakes through the built bin: one line on stderr, exit code 2, nothing left behind. */
describe('visitor-intelligence startup errors', () => {
  let dir: string;
  let busy: Server;
  let busyPort: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vi-cli-errors-'));
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    busyPort = (busy.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => busy.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  /** A fresh empty folder to run in, so "no files left behind" can be checked by listing it. */
  const workdir = (name: string) => {
    const path = join(dir, name);
    mkdirSync(path);
    return path;
  };

  it('refuses a port already in use before seeding, leaving no file behind', async () => {
    const cwd = workdir('busy');
    const { code, stdout, stderr } = await runBin(['serve', '--port', String(busyPort), '--db', 'data/demo.sqlite', '--people', '20'], { cwd });
    expect(code).toBe(2);
    expect(oneLine(stderr)).toBe(`error: port ${busyPort} on 127.0.0.1 is already in use; choose another with --port (0 takes a free one)`);
    expect(stdout).not.toContain('Seeded');
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('refuses a --db that is a directory, naming it', async () => {
    const cwd = workdir('directory');
    mkdirSync(join(cwd, 'demo.sqlite'));
    const { code, stderr } = await runBin(['serve', '--port', '0', '--db', 'demo.sqlite'], { cwd });
    expect(code).toBe(2);
    expect(oneLine(stderr)).toBe('error: --db demo.sqlite is a directory, not a database file');
  });

  it('refuses a --db that is not a SQLite database, naming it and leaving it as it was', async () => {
    const cwd = workdir('not-a-database');
    writeFileSync(join(cwd, 'notes.txt'), 'just some text, long enough to be read as a database header\n'.repeat(20));
    const { code, stderr } = await runBin(['serve', '--port', '0', '--db', 'notes.txt'], { cwd });
    expect(code).toBe(2);
    expect(oneLine(stderr)).toBe('error: --db notes.txt is not a SQLite database');
    expect(readdirSync(cwd)).toEqual(['notes.txt']);
  });

  it('refuses a --db in a folder that cannot be made (a file stands where it would be), naming the path', async () => {
    const cwd = workdir('unusable-folder');
    writeFileSync(join(cwd, 'data'), 'a file, not a folder');
    const { code, stderr } = await runBin(['serve', '--port', '0', '--db', 'data/demo.sqlite', '--people', '20'], { cwd });
    expect(code).toBe(2);
    expect(oneLine(stderr)).toMatch(/^error: --db data\/demo\.sqlite cannot be created: ENOTDIR/);
    expect(readdirSync(cwd)).toEqual(['data']);
  });

  it('refuses a --db in a folder where no file can be written (Linux /proc), naming the path', async () => {
    const { code, stdout, stderr } = await runBin(['serve', '--port', '0', '--db', '/proc/demo.sqlite', '--people', '20'], { cwd: workdir('unwritable') });
    expect(code).toBe(2);
    expect(oneLine(stderr)).toMatch(/^error: --db \/proc\/demo\.sqlite cannot be opened or created: is its folder writable\?/);
    expect(stdout).not.toContain('Seeded');
  });

  it('refuses --read-db beside a SQLite --db before seeding, leaving no file behind', async () => {
    const cwd = workdir('read-db-sqlite');
    const { code, stderr } = await runBin(['serve', '--port', '0', '--db', 'demo.sqlite', '--read-db', 'postgres://postgres@127.0.0.1:1/vi', '--people', '20'], { cwd });
    expect(code).toBe(2);
    expect(oneLine(stderr)).toBe('error: --read-db needs a postgres:// --db: demo.sqlite is a SQLite file, which has no read replicas');
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('refuses a database that holds no demo data', async () => {
    const cwd = workdir('foreign');
    const { createApi } = await import('../../adapters/node/index.ts');
    const api = await createApi({ database: join(cwd, 'other.sqlite') });
    await api.close();
    const { code, stderr } = await runBin(['serve', '--port', '0', '--db', 'other.sqlite'], { cwd });
    expect(code).toBe(2);
    expect(oneLine(stderr)).toMatch(/^error: --db other\.sqlite holds no demo data/);
  });

  it.each([
    [['serve', '--bogus'], "error: unknown option '--bogus'"],
    [['serve', '--port', 'eighty'], "error: option '--port <n>' argument 'eighty' is invalid. Must be a whole number from 0 to 65535."],
    [['serve', '--rate-limit', '0'], "error: option '--rate-limit <n>' argument '0' is invalid. Must be a whole number from 1 to 1000000000."],
    [['serve', '--cors', 'app.example'], "error: option '--cors <origin>' argument 'app.example' is invalid. Must be *, an origin such as https://app.example or http://localhost:3000, or https://*.app.example for its subdomains."],
    [['serve', '--cors', 'https://*.com'], "error: option '--cors <origin>' argument 'https://*.com' is invalid. Must be *, an origin such as https://app.example or http://localhost:3000, or https://*.app.example for its subdomains."],
    [['serve', '--read-db', 'replica.sqlite'], "error: option '--read-db <url>' argument 'replica.sqlite' is invalid. Must be a postgres:// URL of a hot standby of --db."],
    [['load', 'people.json'], "error: required option '--db <file>' not specified"],
    [['launch'], "error: unknown command 'launch'"],
  ])('answers bad flags %j with commander\'s message and exit code 2', async (args, message) => {
    const { code, stderr } = await runBin(args, { cwd: workdir(`flags-${args.join('-').replace(/[^\w.-]/g, '_')}`) });
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toBe(message);
    expect(stderr).not.toMatch(/^\s+at /m);
  });

  it('refuses a $PORT that is not a port number', async () => {
    const { code, stderr } = await runBin(['serve'], { cwd: workdir('bad-env-port'), env: { PORT: 'http' } });
    expect(code).toBe(2);
    expect(oneLine(stderr)).toBe('error: $PORT must be a port number from 0 to 65535, not "http"');
  });
});
