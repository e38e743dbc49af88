import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../core/openapi/schemas.ts';
import { errorCode } from '../support/client.ts';
import { WHERE } from './where.ts';
import { serveWorld, TARGETS } from '../support/targets.ts';
import { adminClient, serveAdminWorld, TOKEN, type AdminSetup } from '../admin-http/support.ts';

for (const target of TARGETS) {
  describe(`fault rules through /_admin/faults (${target.name})`, () => {
    let s: AdminSetup;
    serveAdminWorld(target, (setup) => (s = setup), { faults: true });

    it('applies a rule to the path it names, as requested or as documented, the number of times it says', async () => {
      const rule = await s.admin.post('/_admin/faults', { path: '/v1/people/{id}', fault: 'not_found', times: 2 });
      expect(rule.body.data).toEqual({ id: rule.body.data.id, method: null, path: '/v1/people/{id}', fault: 'not_found', delayMs: null, remaining: 2 });
      for (let i = 0; i < 2; i++) {
        const reply = await s.client.get('/v1/people/per_001', s.world.accountKey);
        expect(reply.status).toBe(404);
        expect(reply.headers.get('preference-applied')).toBe('fault=not_found');
      }
      expect((await s.client.get('/v1/people/per_001', s.world.accountKey)).status).toBe(200);
      expect((await s.admin.get('/_admin/faults')).body.data).toEqual([]);

      await s.admin.post('/_admin/faults', { method: 'GET', path: '/v1/companies/co_01', fault: 'internal_error', times: 1 });
      expect((await s.client.get('/v1/companies/co_02', s.world.accountKey)).status).toBe(200);
      expect((await s.client.get('/v1/companies/co_01', s.world.accountKey)).status).toBe(500);
    });

    it('applies a rule without a path only where the operation documents its fault, and keeps it until cleared', async () => {
      await s.admin.post('/_admin/faults', { fault: 'invalid_cursor' });
      expect((await s.client.get('/v1/stats', s.world.accountKey)).status).toBe(200);
      for (const path of ['/v1/people', '/v1/companies', '/v1/people/per_001/events']) {
        expect(errorCode(await s.client.get(path, s.world.accountKey)), path).toBe('invalid_cursor');
      }
      expect((await s.admin.get('/_admin/faults')).body.data).toMatchObject([{ fault: 'invalid_cursor', remaining: null }]);
      expect((await s.admin.send('DELETE', '/_admin/faults')).body.data).toEqual([]);
      expect((await s.client.get('/v1/people', s.world.accountKey)).status).toBe(200);
    });

    it('makes every error code of the spec reachable by rule, each for one request', async () => {
      for (const code of ERROR_CODES.filter((c) => c !== 'method_not_allowed')) {
        const { method, path, status, key } = WHERE[code]!;
        expect((await s.admin.post('/_admin/faults', { method, path, fault: code, times: 1 })).status, code).toBe(200);
        const headers: Record<string, string> = key === 'none' ? {} : { 'x-api-key': s.world.accountKey };
        const injected = await s.call(path, { method, headers });
        expect(injected.status, code).toBe(status);
        expect((await injected.json()).error.code, code).toBe(code);
        expect(injected.headers.get('preference-applied')).toBe(`fault=${code}`);
        // Used once, the rule is gone.
        expect((await s.call(path, { method, headers })).status, code).toBeLessThan(300);
      }
    });

    it('lets a Prefer header win over a rule', async () => {
      await s.admin.post('/_admin/faults', { path: '/v1/people', fault: 'internal_error' });
      const preferred = await s.client.get('/v1/people', s.world.accountKey, { prefer: 'fault=bad_request' });
      expect(errorCode(preferred)).toBe('bad_request');
    });

    it('fails an export and delays a request by rule', async () => {
      await s.admin.post('/_admin/faults', { method: 'POST', path: '/v1/exports', fault: 'export_failed', times: 1 });
      await s.admin.post('/_admin/faults', { path: '/v1/health', delayMs: 15, times: 1 });
      const started = await s.client.send('POST', '/v1/exports', s.world.accountKey);
      expect(started.status).toBe(202);
      expect((await s.client.get(started.body.statusUrl, s.world.accountKey)).body.status).toBe('failed');
      const health = await s.client.get('/v1/health');
      expect(health.status).toBe(200);
      expect(health.headers.get('preference-applied')).toBe('delay=15');
    });

    it('is cleared by a reset', async () => {
      await s.admin.post('/_admin/faults', { fault: 'internal_error' });
      await s.admin.post('/_admin/reset');
      expect((await s.admin.get('/_admin/faults')).body.data).toEqual([]);
      expect((await s.client.get('/v1/health')).status).toBe(200);
    });

    it('refuses a rule it cannot apply, naming the field', async () => {
      const cases: [unknown, RegExp][] = [
        [{ fault: 'teapot' }, /^fault must be one of bad_request/],
        [{ fault: 'method_not_allowed' }, /^fault must be one of/],
        [{ delayMs: 30_001 }, /^delayMs must be an integer from 0 to 30000/],
        [{ path: 'people', fault: 'internal_error' }, /^path must be an API path/],
        [{ method: 'PUT', fault: 'internal_error' }, /^method must be GET or POST/],
        [{ times: 0, fault: 'internal_error' }, /^times must be/],
        [{ path: '/v1/people' }, /needs a fault, a delayMs or both/],
        [{ fault: 'internal_error', when: 'always' }, /"when" is not a field/],
      ];
      for (const [body, message] of cases) {
        const reply = await s.admin.post('/_admin/faults', body);
        expect(reply.status, JSON.stringify(body)).toBe(400);
        expect(reply.body.error.message).toMatch(message);
      }
    });
  });

  describe(`fault rules when fault injection is off (${target.name})`, () => {
    let call: (path: string, init?: RequestInit) => Promise<Response>;
    serveWorld(target, { admin: { token: TOKEN } }, (_world, _client, c) => (call = c));

    it('answers /_admin/faults 404', async () => {
      const reply = await adminClient(call).post('/_admin/faults', { fault: 'internal_error' });
      expect(reply.status).toBe(404);
      expect(errorCode(reply)).toBe('not_found');
    });
  });
}
