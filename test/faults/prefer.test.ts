import { describe, expect, it } from 'vitest';
import { readPreferences } from '../../core/faults/prefer.ts';
import { ERROR_CODES } from '../../core/openapi/schemas.ts';
import { errorCode } from '../support/client.ts';
import { WHERE } from './where.ts';
import { serveWorld, TARGETS } from '../support/targets.ts';
import { serveAdminWorld, type AdminSetup } from '../admin-http/support.ts';


describe('the Prefer header', () => {
  it('reads fault and delay among other preferences, caps the delay at 30 s and ignores what it cannot read', () => {
    expect(readPreferences('respond-async, fault=invalid_cursor; x=1, delay=250')).toEqual({ fault: 'invalid_cursor', delayMs: 250 });
    expect(readPreferences('delay=99999')).toEqual({ delayMs: 30_000 });
    expect(readPreferences('fault="internal_error"')).toEqual({ fault: 'internal_error' });
    expect(readPreferences('delay=-5, fault=Bad Code, wait')).toEqual({});
    expect(readPreferences(null)).toEqual({});
  });
});

for (const target of TARGETS) {
  describe(`fault injection per request (${target.name})`, () => {
    let s: AdminSetup;
    serveAdminWorld(target, (setup) => (s = setup), { faults: true });

    it('makes every error code of the spec reachable, as the operation documents it', async () => {
      for (const code of ERROR_CODES.filter((c) => c !== 'method_not_allowed')) {
        const { method, path, status, key } = WHERE[code]!;
        const headers: Record<string, string> = { prefer: `fault=${code}` };
        if (key !== 'none') headers['x-api-key'] = s.world.accountKey;
        const res = await s.call(path, { method, headers });
        expect(res.status, code).toBe(status);
        const body = await res.json();
        expect(body.error.code, code).toBe(code);
        expect(res.headers.get('preference-applied')).toBe(`fault=${code}`);
        expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
      }
      // The one code no operation documents comes from a real wrong method.
      const wrong = await s.client.send('DELETE', '/v1/people', s.world.accountKey);
      expect(errorCode(wrong)).toBe('method_not_allowed');
    });

    it('answers an injected 429 like a real one: Retry-After, nothing remaining, and nothing counted', async () => {
      const before = await s.client.get('/v1/stats', s.world.accountKey);
      const limited = await s.client.get('/v1/stats', s.world.accountKey, { prefer: 'fault=rate_limit_exceeded' });
      expect(limited.status).toBe(429);
      expect(limited.body.error.message).toMatch(/^Hourly request limit of 1000 reached; retry after \d+ seconds\.$/);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(limited.headers.get('x-ratelimit-limit')).toBe('1000');
      const after = await s.client.get('/v1/stats', s.world.accountKey);
      expect(Number(after.headers.get('x-ratelimit-remaining'))).toBe(Number(before.headers.get('x-ratelimit-remaining')) - 1);
    });

    it('answers an injected invalid_cursor and 401 exactly as the real ones, but for Preference-Applied', async () => {
      const pairs = [
        [await s.call('/v1/people?cursor=forged', { headers: { 'x-api-key': s.world.accountKey } }), await s.call('/v1/people', { headers: { 'x-api-key': s.world.accountKey, prefer: 'fault=invalid_cursor' } })],
        [await s.call('/v1/people'), await s.call('/v1/people', { headers: { 'x-api-key': s.world.accountKey, prefer: 'fault=unauthorized' } })],
      ] as const;
      for (const [real, injected] of pairs) {
        expect(injected.status).toBe(real.status);
        expect(await injected.json()).toEqual(await real.json());
        const names = (r: Response) => [...r.headers.keys()].filter((h) => !['preference-applied', 'x-ratelimit-remaining', 'content-length', 'connection', 'keep-alive'].includes(h)).sort();
        expect(names(injected)).toEqual(names(real));
        expect(real.headers.get('preference-applied')).toBeNull();
      }
    });

    it('starts an export whose job then fails, with export_failed', async () => {
      const started = await s.client.send('POST', '/v1/exports', s.world.accountKey, undefined, { prefer: 'fault=export_failed' });
      expect(started.status).toBe(202);
      expect(started.headers.get('preference-applied')).toBe('fault=export_failed');
      const job = await s.client.get(started.body.statusUrl, s.world.accountKey);
      expect(job.body).toMatchObject({ status: 'failed', error: 'The export failed because of an internal error; start a new export.' });
    });

    it('waits a requested delay on a real timer and says so, with or without a fault', async () => {
      const slow = await s.client.get('/v1/people?limit=1', s.world.accountKey, { prefer: 'delay=20' });
      expect(slow.status).toBe(200);
      expect(slow.headers.get('preference-applied')).toBe('delay=20');
      const both = await s.client.get('/v1/health', undefined, { prefer: 'fault=internal_error, delay=5' });
      expect(both.status).toBe(500);
      expect(both.headers.get('preference-applied')).toBe('fault=internal_error, delay=5');
    });

    it('ignores a fault the operation does not document, or one it does not know', async () => {
      for (const prefer of ['fault=not_found', 'fault=teapot', 'fault=export_failed']) {
        const reply = await s.client.get('/v1/people?limit=1', s.world.accountKey, { prefer });
        expect(reply.status, prefer).toBe(200);
        expect(reply.headers.get('preference-applied')).toBeNull();
      }
    });
  });

  describe(`fault injection when not enabled (${target.name})`, () => {
    let call: (path: string, init?: RequestInit) => Promise<Response>;
    let key: string;
    serveWorld(target, {}, (world, _client, c) => ((call = c), (key = world.accountKey)));

    it('lets a Prefer header change nothing', async () => {
      for (const prefer of ['fault=internal_error', 'fault=rate_limit_exceeded', 'delay=10']) {
        const res = await call('/v1/people?limit=1', { headers: { 'x-api-key': key, prefer } });
        expect(res.status, prefer).toBe(200);
        expect(res.headers.get('preference-applied')).toBeNull();
      }
    });
  });
}
