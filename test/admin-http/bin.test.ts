import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin, startBin, stop } from '../cli/bin.ts';

/** `visitor-intelligence serve` from the built package: admin over HTTP on, fault injection asked for. */
describe('visitor-intelligence serve with admin over HTTP (built bin)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vi-admin-serve-'));
  let server: Awaited<ReturnType<typeof startBin>>;
  let keys: { baseUrl: string; accountKey: string; adminToken: string };
  const admin = (path: string, init: RequestInit = {}) =>
    fetch(`${keys.baseUrl}${path}`, { ...init, headers: { authorization: `Bearer ${keys.adminToken}`, 'content-type': 'application/json', ...(init.headers as Record<string, string>) } });

  beforeAll(async () => {
    // A database that already holds data of the user's own when the server starts.
    expect((await runBin(['seed', '--db', 'demo.sqlite', '--people', '30'], { cwd: dir })).code).toBe(0);
    writeFileSync(join(dir, 'companies.json'), JSON.stringify([{ id: 'co_user', name: 'Loaded Before Start' }]));
    expect((await runBin(['load', 'companies.json', '--db', 'demo.sqlite'], { cwd: dir })).code).toBe(0);
    server = await startBin(['serve', '--port', '0', '--db', 'demo.sqlite', '--people', '30', '--keys-out', 'keys.json', '--faults'], /Keys written to/, { cwd: dir });
    keys = JSON.parse(readFileSync(join(dir, 'keys.json'), 'utf8'));
  }, 120_000);
  afterAll(async () => {
    if (server) await stop(server.child, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints a random admin token and writes it to the keys file', () => {
    expect(keys.adminToken).toMatch(/^[0-9a-f]{48}$/);
    expect(server.output()).toContain(keys.adminToken);
    expect(server.output()).toContain('Fault injection: on');
  });

  it('loads data, moves the clock and resets both to how the server found them, over HTTP', async () => {
    const person = { id: 'per_bin', visits: [{ domain: 'acme-example.com', visitCount: 1, firstSeen: '2026-11-20T10:00:00Z', lastSeen: '2026-11-21T10:00:00Z' }] };
    const loaded = await admin('/_admin/accounts/acc_demo/people', { method: 'POST', body: JSON.stringify(person), headers: { 'content-type': 'application/x-ndjson' } });
    expect(await loaded.json()).toEqual({ data: { received: 1, loaded: 1 } });
    expect((await fetch(`${keys.baseUrl}/v1/people/per_bin`, { headers: { 'x-api-key': keys.accountKey } })).status).toBe(200);

    const before = Date.parse((await (await admin('/_admin/clock')).json()).data.now);
    const moved = (await (await admin('/_admin/clock', { method: 'POST', body: JSON.stringify({ advanceSeconds: 7 * 86_400 }) })).json()).data.now;
    expect(Date.parse(moved) - before).toBeGreaterThanOrEqual(7 * 86_400_000);

    expect((await admin('/_admin/reset', { method: 'POST' })).status).toBe(200);
    expect((await fetch(`${keys.baseUrl}/v1/people/per_bin`, { headers: { 'x-api-key': keys.accountKey } })).status).toBe(404);
    // What the file held at start, loaded by the user before, stays.
    expect((await fetch(`${keys.baseUrl}/v1/companies/co_user`, { headers: { 'x-api-key': keys.accountKey } })).status).toBe(200);
    const now = Date.parse((await (await admin('/_admin/clock')).json()).data.now);
    expect(now - before).toBeLessThan(86_400_000);
  });

  it('refuses the API key on admin routes and honours Prefer faults', async () => {
    expect((await fetch(`${keys.baseUrl}/_admin/accounts`, { headers: { 'x-api-key': keys.accountKey } })).status).toBe(401);
    const injected = await fetch(`${keys.baseUrl}/v1/people`, { headers: { 'x-api-key': keys.accountKey, prefer: 'fault=rate_limit_exceeded' } });
    expect(injected.status).toBe(429);
    expect(injected.headers.get('preference-applied')).toBe('fault=rate_limit_exceeded');
  });
});
