import { describe, expect, it } from 'vitest';
import { errorCode } from '../support/client.ts';
import { serveWorld, TARGETS } from '../support/targets.ts';
import { adminClient, serveAdminWorld, TOKEN, type AdminSetup } from './support.ts';

for (const target of TARGETS) {
  describe(`admin over HTTP: who may call it (${target.name})`, () => {
    let s: AdminSetup;
    serveAdminWorld(target, (setup) => (s = setup));

    it('answers the admin token with the data', async () => {
      const reply = await s.admin.get('/_admin/accounts');
      expect(reply.status).toBe(200);
      expect(reply.body.data).toEqual([{ id: 'acc_a', name: 'Partner A' }, { id: 'acc_b', name: 'Partner B' }]);
      expect(reply.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
    });

    it('refuses a request without an Authorization header with 401, an X-API-Key being no substitute', async () => {
      for (const headers of [{}, { 'x-api-key': s.world.accountKey }] as Record<string, string>[]) {
        const reply = await s.admin.get('/_admin/accounts', { authorization: '', ...headers });
        expect(reply.status).toBe(401);
        expect(errorCode(reply)).toBe('unauthorized');
        expect(reply.body.error.message).toMatch(/Authorization/);
        expect(reply.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
      }
    });

    it('refuses a wrong token, another scheme or an API key in the Authorization header with 403', async () => {
      for (const authorization of [`Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, `Basic ${TOKEN}`, `Bearer ${s.world.accountKey}`, 'Bearer']) {
        const reply = await s.admin.post('/_admin/reset', undefined, { authorization });
        expect(reply.status, authorization).toBe(403);
        expect(errorCode(reply)).toBe('forbidden');
      }
    });

    it('counts admin requests against no budget and gives them no rate-limit headers', async () => {
      const before = await s.client.get('/v1/stats', s.world.accountKey);
      for (let i = 0; i < 5; i++) {
        const reply = await s.admin.get('/_admin/accounts/acc_a/keys');
        expect(reply.status).toBe(200);
        expect(reply.headers.get('x-ratelimit-limit')).toBeNull();
        expect(reply.headers.get('x-ratelimit-remaining')).toBeNull();
      }
      const refused = await s.admin.get('/_admin/accounts', { authorization: '', 'x-api-key': s.world.accountKey });
      expect(refused.status).toBe(401);
      const after = await s.client.get('/v1/stats', s.world.accountKey);
      expect(Number(after.headers.get('x-ratelimit-remaining'))).toBe(Number(before.headers.get('x-ratelimit-remaining')) - 1);
    });

    it('answers an unknown admin path 404 and a wrong method 405 with Allow, as the API does', async () => {
      const unknown = await s.admin.get('/_admin/nothing-here');
      expect(unknown.status).toBe(404);
      expect(errorCode(unknown)).toBe('not_found');
      const wrong = await s.admin.get('/_admin/reset');
      expect(wrong.status).toBe(405);
      expect(errorCode(wrong)).toBe('method_not_allowed');
      expect(wrong.headers.get('allow')).toBe('POST');
    });
  });

  describe(`admin over HTTP when not configured (${target.name})`, () => {
    let call: (path: string, init?: RequestInit) => Promise<Response>;
    serveWorld(target, {}, (_world, _client, c) => (call = c));

    it('answers every admin path 404, token or not', async () => {
      const admin = adminClient(call);
      for (const reply of [await admin.post('/_admin/reset'), await admin.get('/_admin/accounts'), await admin.get('/_admin/accounts', { authorization: '' })]) {
        expect(reply.status).toBe(404);
        expect(errorCode(reply)).toBe('not_found');
      }
    });
  });
}
