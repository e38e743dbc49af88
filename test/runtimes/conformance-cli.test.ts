import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RUNTIMES, runtimeCommand, type Runtime } from '../../scripts/runtime-command.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, serve, type Api, type RunningServer } from '../../adapters/node/index.ts';
import { ALL_CHECKS } from '../../harness/index.ts';
import { VARIANTS } from '../harness/variants/index.ts';
import { seedAccount } from '../harness/support.ts';
import { runCommand } from '../cli/bin.ts';
import { Receiver } from '../webhooks/receiver.ts';

/**
 * The harness CLI (`visitor-intelligence conformance`, from scripts/cli.ts), under Node, Bun and Deno, against one real server started here,
 * through `--keys FILE`. The runs go at once, so each runtime's full run reads an account of its
 * own (the hourly budget and its headers are per account), and its short runs another.
 */

/** A variant the auth checks catch: 403 where a missing key is due 401. */
const BROKEN = VARIANTS.find((v) => v.id === 'missing-key-403')!;
const CLOSING = /^(\d+) passed, (\d+) failed, (\d+) skipped, (\d+) n\/a$/;

const dir = mkdtempSync(join(tmpdir(), 'vi-harness-cli-'));
let api: Api;
let real: RunningServer;
let broken: RunningServer;
/**
 * Per runtime, keys files: the full run's account on the real server; another account for the
 * short runs (formats) on the real server, and for the broken variant.
 */
const keyFiles = {} as Record<Runtime, { full: string; short: string; broken: string }>;

/** Runs the CLI under a runtime; resolves with its exit code and output. */
const cli = (runtime: Runtime, args: string[]) => runCommand([...runtimeCommand(runtime, 'scripts/cli.ts'), 'conformance', ...args], { timeoutMs: 150_000 });

const lastLine = (text: string) => text.trimEnd().split('\n').at(-1)!.trim();

beforeAll(async () => {
  api = await createApi({ database: ':memory:' });
  const accounts = [];
  for (const runtime of [...RUNTIMES]) {
    accounts.push({ runtime, full: await seedAccount(api, `acc_${runtime}`), short: await seedAccount(api, `acc_${runtime}_short`) });
  }
  real = await serve(api, { port: 0 });
  broken = await serve(BROKEN.wrap(api), { port: 0 });
  const write = (name: string, content: object) => (writeFileSync(join(dir, name), JSON.stringify(content)), join(dir, name));
  for (const { runtime, full, short } of accounts) {
    keyFiles[runtime] = {
      full: write(`${runtime}.full.json`, { baseUrl: real.url, ...full }),
      short: write(`${runtime}.short.json`, { baseUrl: real.url, ...short }),
      broken: write(`${runtime}.broken.json`, { baseUrl: broken.url, ...short }),
    };
  }
}, 60_000);

afterAll(async () => {
  await Promise.all([real?.close(), broken?.close()]);
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.concurrent.each([...RUNTIMES])('the harness CLI under %s', (runtime) => {
  it('passes the real server: exit 0, closing line N passed, 0 failed, N skipped, N n/a', async () => {
    const { code, stdout, stderr } = await cli(runtime, ['--keys', keyFiles[runtime].full]);
    const closing = CLOSING.exec(lastLine(stdout));
    expect(closing, `no closing line in:\n${stdout}\n${stderr}`).not.toBeNull();
    expect(code, `${stdout}\n${stderr}`).toBe(0);
    const [, passed, failed, skipped, na] = closing!.map(Number);
    expect(failed, stdout).toBe(0);
    expect(passed).toBeGreaterThan(0);
    expect(passed! + skipped! + na!).toBe(ALL_CHECKS.length);
  }, 180_000);

  it('says in one line that a server where nothing listens cannot be reached, and exits 4', async () => {
    const down = `http://127.0.0.1:${await Receiver.downPort()}`;
    const { code, stdout, stderr } = await cli(runtime, ['--base-url', down, '--key', 'k']);
    expect(code, stderr).toBe(4);
    expect(stdout).toBe('');
    expect(stderr).toMatch(new RegExp(`^Cannot reach the server at ${down}: .+; nothing was checked\\. Start the server, or check --base-url\\.$`, 'm'));
  }, 60_000);

  it('writes well-formed TAP, JSON and JUnit', async () => {
    const args = ['--keys', keyFiles[runtime].short, '--only', 'auth.'];
    const [tap, json, junit] = await Promise.all(['tap', 'json', 'junit'].map((format) => cli(runtime, [...args, '--format', format])));
    for (const r of [tap, json, junit]) expect(r!.code, `${r!.stdout}\n${r!.stderr}`).toBe(0);

    const tapLines = tap!.stdout.trimEnd().split('\n');
    expect(tapLines[0]).toBe('TAP version 14');
    expect(tapLines[1]).toBe(`1..${ALL_CHECKS.length}`);
    const points = tapLines.filter((l) => /^(not )?ok \d+ /.test(l));
    expect(points).toHaveLength(ALL_CHECKS.length);
    expect(points.filter((l) => l.startsWith('not ok'))).toEqual([]);
    expect(tapLines.at(-1)).toMatch(/^# \d+ passed, 0 failed, \d+ skipped, \d+ n\/a$/);

    const report = JSON.parse(json!.stdout);
    expect(report.totals.failed).toBe(0);
    expect(report.totals.passed + report.totals.skipped + report.totals['n/a']).toBe(ALL_CHECKS.length);
    expect(report.results).toHaveLength(ALL_CHECKS.length);
    expect(report.results.filter((r: { id: string; verdict: string }) => r.id.startsWith('auth.')).every((r: { verdict: string }) => r.verdict === 'passed')).toBe(true);

    const xml = junit!.stdout.trim();
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    expect(xml).toContain('<testsuites');
    expect(xml.endsWith('</testsuites>')).toBe(true);
    expect(xml.match(/<testcase /g)).toHaveLength(ALL_CHECKS.length);
    expect(xml).not.toContain('<failure');
    expect(xml.match(/<testsuite /g)?.length).toBe(xml.match(/<\/testsuite>/g)?.length);
  }, 180_000);

  it(`exits 1 against a broken variant (${BROKEN.id})`, async () => {
    const { code, stdout, stderr } = await cli(runtime, ['--keys', keyFiles[runtime].broken, '--only', 'auth.']);
    expect(code, `${stdout}\n${stderr}`).toBe(1);
    expect(lastLine(stdout)).toMatch(/^\d+ passed, [1-9]\d* failed, \d+ skipped, \d+ n\/a$/);
    expect(stdout).toContain('FAIL auth.missing-key-401');
  }, 180_000);
});
