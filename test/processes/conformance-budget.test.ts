import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin, startBin, stop } from '../cli/bin.ts';

/**
 * The demo server's hourly budget spent, a conformance run cannot judge: it refuses, and its
 * refusal names the ways out that the demo server offers, which then work.
 */
describe('conformance against a demo server whose hourly budget is spent (built bin)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vi-conformance-budget-'));
  const LIMIT = 150;
  let server: Awaited<ReturnType<typeof startBin>>;
  let keys: { baseUrl: string; accountKey: string; adminToken: string };

  beforeAll(async () => {
    server = await startBin(['serve', '--port', '0', '--db', 'demo.sqlite', '--people', '30', '--rate-limit', String(LIMIT), '--keys-out', 'keys.json'], /Keys written to keys\.json/, { cwd: dir });
    keys = JSON.parse(readFileSync(join(dir, 'keys.json'), 'utf8'));
  }, 120_000);
  afterAll(async () => {
    if (server) await stop(server.child, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses with the way out (POST /_admin/reset with the keys file\'s admin token, or serve --rate-limit N); taking it, the run passes', async () => {
    for (let i = 0; i < LIMIT; i++) await (await fetch(`${keys.baseUrl}/v1/stats`, { headers: { 'x-api-key': keys.accountKey } })).arrayBuffer();
    const refused = await runBin(['conformance', '--keys', 'keys.json', '--only', 'auth.'], { cwd: dir });
    expect(refused.code).toBe(3);
    expect(refused.stdout).toBe('');
    const [why, waysOut] = refused.stderr.trimEnd().split('\n');
    expect(why).toMatch(/^Not started: the run needs about \d+ requests but the server allows 0 more this hour/);
    expect(waysOut).toBe(`This is visitor-intelligence serve: POST ${keys.baseUrl}/_admin/reset (Authorization: Bearer and the adminToken of keys.json) gives the budget back at once, and serve --rate-limit N starts it with N requests an hour.`);

    const reset = await fetch(`${keys.baseUrl}/_admin/reset`, { method: 'POST', headers: { authorization: `Bearer ${keys.adminToken}` } });
    expect(reset.status).toBe(200);
    const again = await runBin(['conformance', '--keys', 'keys.json', '--only', 'auth.'], { cwd: dir });
    expect(again.code, again.stderr).toBe(0);
  }, 120_000);
});
