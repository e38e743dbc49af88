import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, serve, type Api, type RunningServer } from '../../adapters/node/index.ts';
import { runtimeCommand } from '../../scripts/runtime-command.ts';
import { runCommand } from '../cli/bin.ts';
import { seedAccount } from './support.ts';
import { VARIANTS } from './variants/index.ts';

/**
 * Baselines and the budget stop through the CLI (`visitor-intelligence conformance`, under Node):
 * a real server, a broken variant of it (403 where a missing key is due 401, caught by
 * auth.missing-key-401), and a server whose hourly budget is nearly spent.
 */
const BROKEN = VARIANTS.find((v) => v.id === 'missing-key-403')!;
const dir = mkdtempSync(join(tmpdir(), 'vi-harness-baseline-'));
let api: Api;
let tight: Api;
let servers: RunningServer[] = [];
const keys = { real: '', broken: '', tight: '' };

/** Runs the conformance command; resolves with its exit code and output. */
const cli = (args: string[]) => runCommand([...runtimeCommand('node', 'scripts/cli.ts'), 'conformance', ...args]);

beforeAll(async () => {
  api = await createApi({ database: ':memory:' });
  const account = await seedAccount(api, 'acc_baseline', { people: 20 });
  // A server whose account has 30 requests an hour, 25 of them spent.
  tight = await createApi({ database: ':memory:', rateLimits: { accountPerHour: 30 } });
  const small = await seedAccount(tight, 'acc_tight', { people: 20 });
  for (let i = 0; i < 25; i++) await tight.fetch(new Request('http://api.test/v1/stats', { headers: { 'x-api-key': small.accountKey } }));
  servers = await Promise.all([serve(api, { port: 0 }), serve(BROKEN.wrap(api), { port: 0 }), serve(tight, { port: 0 })]);
  const write = (name: string, baseUrl: string, k: object) => (writeFileSync(join(dir, name), JSON.stringify({ baseUrl, ...k })), join(dir, name));
  keys.real = write('real.json', servers[0]!.url, account);
  keys.broken = write('broken.json', servers[1]!.url, account);
  keys.tight = write('tight.json', servers[2]!.url, small);
}, 60_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await Promise.all([api?.close(), tight?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

describe('conformance --baseline', () => {
  const file = join(dir, 'known.json');

  it('--update-baseline writes the failures by check id and exits 0; the same failures again exit 0; a fixed one exits 1 as an unexpected pass', async () => {
    const written = await cli(['--keys', keys.broken, '--only', 'auth.', '--baseline', file, '--update-baseline']);
    expect(written.code, written.stderr).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')).failures)).toEqual(['auth.missing-key-401']);

    const again = await cli(['--keys', keys.broken, '--only', 'auth.', '--baseline', file]);
    expect(again.code, `${again.stdout}\n${again.stderr}`).toBe(0);
    expect(again.stdout).toContain('FAIL auth.missing-key-401');
    expect(again.stderr).toContain('1 known failure(s) failed again');

    const fixed = await cli(['--keys', keys.real, '--only', 'auth.', '--baseline', file]);
    expect(fixed.code, `${fixed.stdout}\n${fixed.stderr}`).toBe(1);
    expect(fixed.stderr).toContain('unexpected pass: auth.missing-key-401');
  }, 120_000);

  it('exits 1 on a failure the baseline does not list, and 2 on a baseline file that is not one', async () => {
    const empty = join(dir, 'empty.json');
    writeFileSync(empty, JSON.stringify({ failures: {} }));
    const fresh = await cli(['--keys', keys.broken, '--only', 'auth.', '--baseline', empty]);
    expect(fresh.code, `${fresh.stdout}\n${fresh.stderr}`).toBe(1);
    expect(fresh.stderr).toContain('new failure: auth.missing-key-401');

    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"failures": 3}');
    const refused = await cli(['--keys', keys.real, '--only', 'auth.', '--baseline', bad]);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim()).toMatch(/^error: --baseline .*bad\.json: a baseline is/);
    expect(existsSync(join(dir, 'missing.json'))).toBe(false);
    const missing = await cli(['--keys', keys.real, '--only', 'auth.', '--baseline', join(dir, 'missing.json')]);
    expect(missing.code).toBe(2);
  }, 120_000);
});

describe('conformance on a short budget', () => {
  it('stops before the first check with one message, the ways out, and exit status 3', async () => {
    const { code, stdout, stderr } = await cli(['--keys', keys.tight]);
    expect(code, `${stdout}\n${stderr}`).toBe(3);
    expect(stdout).toBe('');
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/POST \S+\/_admin\/reset .* serve --rate-limit N/);
    expect(lines[0]).toMatch(/^Not started: the run needs about \d+ requests but the server allows 4 more this hour; the server does not say when its window reopens/);
  }, 120_000);

  it('runs within --max-requests when asked for fewer than remain', async () => {
    const { code, stdout, stderr } = await cli(['--keys', keys.tight, '--max-requests', '3', '--only', 'auth.']);
    expect(code, `${stdout}\n${stderr}`).toBe(0);
    expect(stdout).toMatch(/^3 requests sent/m);
    expect(stdout).toContain('not run: --max-requests 3 reached');
  }, 120_000);
});
