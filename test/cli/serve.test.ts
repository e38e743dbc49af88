import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin, startBin, stop } from './bin.ts';

const APP = 'http://localhost:5173';
const SUBDOMAINS = 'https://*.app.example';

/** `visitor-intelligence serve` from the built package, with the flags npm start did not have. */
describe('visitor-intelligence serve (built bin)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vi-cli-serve-'));
  let server: Awaited<ReturnType<typeof startBin>>;
  let keys: { baseUrl: string; accountKey: string; scopedKeys: { domain: string; key: string }[] };

  beforeAll(async () => {
    const args = ['serve', '--port', '0', '--db', 'demo.sqlite', '--people', '40', '--keys-out', 'keys.json', '--rate-limit', '5', '--cors', APP, '--cors', SUBDOMAINS];
    server = await startBin(args, /Keys written to/, { cwd: dir });
    keys = JSON.parse(readFileSync(join(dir, 'keys.json'), 'utf8'));
  }, 120_000);
  afterAll(async () => {
    if (server) await stop(server.child, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('seeds, listens and says which limit and origins it applies', () => {
    expect(server.output()).toMatch(/Seeded 9 sites, \d+ companies, 40 people/);
    expect(server.output()).toContain(`listening on ${keys.baseUrl} (node)`);
    expect(server.output()).toContain('Hourly limit: 5 requests per account and per domain-scoped key');
    expect(server.output()).toContain(`CORS: ${APP}, ${SUBDOMAINS}`);
  });

  it('answers a browser preflight from an allowed origin and lets it read the answer', async () => {
    const pre = await fetch(`${keys.baseUrl}/v1/people`, {
      method: 'OPTIONS',
      headers: { origin: APP, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(APP);
    expect(pre.headers.get('access-control-allow-headers')).toMatch(/X-API-Key/i);
    const res = await fetch(`${keys.baseUrl}/v1/people?limit=1`, { headers: { origin: APP, 'x-api-key': keys.accountKey } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(APP);
    const other = await fetch(`${keys.baseUrl}/v1/health`, { headers: { origin: 'https://elsewhere.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('lets --cors https://*.app.example allow its subdomains and nothing else', async () => {
    const pre = (origin: string) =>
      fetch(`${keys.baseUrl}/v1/people`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key' } });
    const allowed = await pre('https://eu.dash.app.example');
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://eu.dash.app.example');
    for (const origin of ['https://app.example', 'https://evil-app.example', 'http://dash.app.example']) {
      const refused = await pre(origin);
      expect(refused.status, origin).toBe(405);
      expect(refused.headers.get('access-control-allow-origin'), origin).toBeNull();
    }
  });

  it('applies --rate-limit to the account and to each domain-scoped key', async () => {
    const scoped = keys.scopedKeys[0]!.key;
    const first = await fetch(`${keys.baseUrl}/v1/stats`, { headers: { 'x-api-key': scoped } });
    expect(first.headers.get('x-ratelimit-limit')).toBe('5');
    let last: Response | undefined;
    for (let i = 0; i < 5; i++) last = await fetch(`${keys.baseUrl}/v1/stats`, { headers: { 'x-api-key': keys.accountKey } });
    expect(last!.status).toBe(429);
    expect(last!.headers.get('x-ratelimit-limit')).toBe('5');
  });

  it('stops cleanly on SIGTERM', async () => {
    expect(await stop(server.child, 'SIGTERM')).toBe(0);
  });

  it('prints its flags, --host 0.0.0.0 among them, with --help', async () => {
    const { code, stdout } = await runBin(['serve', '--help']);
    expect(code).toBe(0);
    for (const flag of ['--port', '--host', '--db', '--seed', '--people', '--anchor', '--keys-out', '--rate-limit', '--cors']) expect(stdout).toContain(flag);
    expect(stdout).toContain('0.0.0.0');
  });
});
