import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Served } from '../harness/support.ts';
import { Receiver } from '../webhooks/receiver.ts';
import { oneLine, runBin } from './bin.ts';

/** `visitor-intelligence conformance` from the built package (its runs under each runtime are in test/harness/cli-runtimes.test.ts). */
describe('visitor-intelligence conformance (built bin)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vi-cli-conformance-'));
  let served: Served;
  let keysFile: string;

  beforeAll(async () => {
    served = await startServer();
    keysFile = join(dir, 'keys.json');
    writeFileSync(keysFile, JSON.stringify({ baseUrl: served.baseUrl, accountKey: served.accountKey, scopedKeys: served.scopedKeys }));
  }, 60_000);
  afterAll(async () => {
    await served?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('passes a real server with --keys, and writes the report to --out', async () => {
    const out = join(dir, 'report.tap');
    const { code, stdout, stderr } = await runBin(['conformance', '--keys', keysFile, '--only', 'auth.', '--format', 'tap', '--out', out]);
    expect(code, `${stdout}\n${stderr}`).toBe(0);
    expect(stdout.split('\n')[0]).toBe('TAP version 14');
    expect(readFileSync(out, 'utf8')).toBe(`${stdout.trimEnd()}\n`);
  });

  it('takes --base-url, --key and repeated --scoped-key', async () => {
    const scoped = served.scopedKeys.flatMap(({ domain, key }) => ['--scoped-key', `${domain}=${key}`]);
    const { code, stdout } = await runBin(['conformance', '--base-url', served.baseUrl, '--key', served.accountKey, ...scoped, '--only', 'auth.', '--format', 'json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).totals.failed).toBe(0);
  });

  it.each([
    [['conformance'], 'error: --base-url and --key are required (or --keys FILE)'],
    [['conformance', '--base-url', 'http://127.0.0.1:9', '--key', 'k', '--scoped-key', 'nodomain'], 'error: --scoped-key takes DOMAIN=KEY, not nodomain'],
  ])('refuses %j in one line with exit code 2', async (args, message) => {
    const { code, stderr } = await runBin(args);
    expect(code).toBe(2);
    expect(oneLine(stderr)).toBe(message);
  });

  it('says in one line that a server where nothing listens cannot be reached, judges nothing, and exits 4', async () => {
    const down = `http://127.0.0.1:${await Receiver.downPort()}`;
    const { code, stdout, stderr } = await runBin(['conformance', '--base-url', down, '--key', 'k', '--format', 'json']);
    expect(code).toBe(4);
    expect(stdout).toBe('');
    expect(oneLine(stderr)).toMatch(new RegExp(`^Cannot reach the server at ${down}: .*ECONNREFUSED.*; nothing was checked\\.`));
  });

  it('names the ways out of a spent budget when a 429 stops its checks mid-run', async () => {
    // The first answer (the budget probe) hides X-RateLimit-Remaining, so the run starts and meets the 429.
    let answers = 0;
    const hiding = await startServer({
      people: 20,
      rateLimits: { accountPerHour: 60 },
      wrap: (api) => ({
        async fetch(request) {
          const response = await api.fetch(request);
          if (++answers > 1) return response;
          const headers = new Headers(response.headers);
          headers.delete('x-ratelimit-remaining');
          return new Response(response.body, { status: response.status, headers });
        },
      }),
    });
    try {
      const { code, stdout, stderr } = await runBin(['conformance', '--base-url', hiding.baseUrl, '--key', hiding.accountKey]);
      expect(stdout).toMatch(/hourly request budget ran out/);
      expect(stderr).toContain(`Some checks were not run: the hourly request budget ran out`);
      expect(stderr).toContain(`If the server is visitor-intelligence serve: POST ${hiding.baseUrl}/_admin/reset (Authorization: Bearer and its admin token) gives the budget back at once, and serve --rate-limit N starts it with N requests an hour.`);
      // Checks skipped for the budget are not failures.
      expect(code).toBe(0);
    } finally {
      await hiding.close();
    }
  });

  it('documents its exit codes in --help, 3 and 4 for a run that could not start', async () => {
    const { code, stdout } = await runBin(['conformance', '--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/Exit code:\n {2}0 .*\n {2}1 .*check failed.*\n {2}2 .*usage.*\n {2}3 .*budget.*\n {2}4 .*cannot be reached/);
  });

  it('refuses an unknown --format with commander\'s message', async () => {
    const { code, stderr } = await runBin(['conformance', '--keys', keysFile, '--format', 'xml']);
    expect(code).toBe(2);
    expect(stderr).toContain("error: option '--format <format>' argument 'xml' is invalid. Allowed choices are text, tap, json, junit.");
  });
});
