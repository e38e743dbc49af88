import { describe, expect, it } from 'vitest';
import { errorCode } from '../support/client.ts';
import { TARGETS } from '../support/targets.ts';
import { serveAdminWorld, type AdminSetup } from './support.ts';

for (const target of TARGETS) {
  describe(`accounts, sites and keys over HTTP (${target.name})`, () => {
    let s: AdminSetup;
    serveAdminWorld(target, (setup) => (s = setup));

    it('creates an account idempotently, and refuses its id under another name', async () => {
      const first = await s.admin.post('/_admin/accounts', { id: 'acc_c', name: 'Partner C' });
      const again = await s.admin.post('/_admin/accounts', { id: 'acc_c', name: 'Partner C' });
      expect(first.body.data).toEqual({ id: 'acc_c', name: 'Partner C' });
      expect(again.body.data).toEqual(first.body.data);
      const clash = await s.admin.post('/_admin/accounts', { id: 'acc_c', name: 'Someone else' });
      expect(clash.status).toBe(400);
      expect(clash.body.error.message).toMatch(/already exists/);
      expect((await s.admin.post('/_admin/accounts', { name: '' })).body.error.message).toMatch(/^name must be/);
      expect((await s.admin.get('/_admin/accounts')).body.data.map((a: any) => a.id)).toEqual(['acc_a', 'acc_b', 'acc_c']);
    });

    it('registers and lists sites', async () => {
      await s.admin.post('/_admin/accounts', { id: 'acc_c', name: 'C' });
      expect((await s.admin.post('/_admin/accounts/acc_c/sites', { domain: 'WWW.C.example.', clientRef: 'c' })).body.data).toEqual({ domain: 'www.c.example', clientRef: 'c' });
      expect((await s.admin.get('/_admin/accounts/acc_c/sites')).body.data).toEqual([{ domain: 'www.c.example', clientRef: 'c' }]);
      expect((await s.admin.post('/_admin/accounts/acc_c/sites', { domain: 'not a host' })).status).toBe(400);
      expect((await s.admin.get('/_admin/accounts/acc_nope/sites')).body.error.message).toBe('no account acc_nope');
    });

    it('issues account and scoped keys that work at once, shows their values only then, rotates and revokes them', async () => {
      const accountKey = (await s.admin.post('/_admin/accounts/acc_b/keys', { label: 'ci' })).body.data;
      expect(accountKey).toMatchObject({ accountId: 'acc_b', domain: null, key: expect.stringMatching(/^vi_live_[0-9a-f]{40}$/) });
      expect((await s.client.get('/v1/people/per_b_only', accountKey.key)).status).toBe(200);

      await s.admin.post('/_admin/accounts/acc_b/sites', { domain: 'shop.b.example' });
      const scoped = (await s.admin.post('/_admin/accounts/acc_b/keys', { domain: 'shop.b.example' })).body.data;
      expect(scoped.domain).toBe('shop.b.example');
      const twice = await s.admin.post('/_admin/accounts/acc_b/keys', { domain: 'shop.b.example' });
      expect(twice.body.error.message).toMatch(/already has an active key/);

      const listed = (await s.admin.get('/_admin/accounts/acc_b/keys')).body.data;
      expect(listed.map((k: any) => k.keyId).sort()).toEqual(expect.arrayContaining([accountKey.keyId, scoped.keyId]));
      expect(JSON.stringify(listed)).not.toContain(accountKey.key);

      const rotated = (await s.admin.post(`/_admin/keys/${accountKey.keyId}/rotate`)).body.data;
      expect(rotated.key).not.toBe(accountKey.key);
      expect((await s.client.get('/v1/stats', accountKey.key)).status).toBe(403);
      expect((await s.client.get('/v1/stats', rotated.key)).status).toBe(200);

      const revoked = await s.admin.post(`/_admin/keys/${rotated.keyId}/revoke`);
      expect(revoked.body.data).toMatchObject({ keyId: rotated.keyId, revokedAt: expect.stringMatching(/Z$/) });
      expect((await s.client.get('/v1/stats', rotated.key)).status).toBe(403);
      const again = await s.admin.post(`/_admin/keys/${rotated.keyId}/revoke`);
      expect(again.status).toBe(400);
      expect(again.body.error.message).toMatch(/already revoked/);
    });

    it('refuses unknown fields, a body that is not an object, and query parameters', async () => {
      expect((await s.admin.post('/_admin/accounts/acc_a/keys', { scope: 'x' })).body.error.message).toMatch(/"scope" is not a field of a key/);
      const array = await s.admin.post('/_admin/accounts', [1]);
      expect(array.status).toBe(400);
      expect(array.body.error.message).toBe('The request body must be a JSON object.');
      const query = await s.admin.get('/_admin/accounts?limit=5');
      expect(errorCode(query)).toBe('bad_request');
      expect(query.body.error.message).toMatch(/Parameter limit is not supported/);
    });
  });

  describe(`webhook endpoints and their delivery log over HTTP (${target.name})`, () => {
    let s: AdminSetup;
    serveAdminWorld(target, (setup) => (s = setup));

    it('creates, reads, changes, rotates and deletes an endpoint', async () => {
      const created = (await s.admin.post('/_admin/accounts/acc_a/webhooks', { url: 'http://127.0.0.1:9/hook', enabled: false })).body.data;
      expect(created).toMatchObject({ accountId: 'acc_a', enabled: false, events: ['person.identified'], secret: expect.stringMatching(/^whsec_/) });
      const got = (await s.admin.get(`/_admin/webhooks/${created.id}`)).body.data;
      expect(got.secret).toBeUndefined();
      const patched = await s.admin.send('PATCH', `/_admin/webhooks/${created.id}`, { events: ['person.activity'] });
      expect(patched.body.data.events).toEqual(['person.identified', 'person.activity']);
      const rotated = (await s.admin.post(`/_admin/webhooks/${created.id}/rotate-secret`, { overlapSeconds: 60 })).body.data;
      expect(rotated.secret).not.toBe(created.secret);
      expect(rotated.previousSecretExpiresAt).toMatch(/Z$/);
      expect((await s.admin.get('/_admin/accounts/acc_a/webhooks')).body.data.map((e: any) => e.id)).toEqual([created.id]);
      expect((await s.admin.send('DELETE', `/_admin/webhooks/${created.id}`)).body.data).toEqual({ id: created.id, deleted: true });
      expect((await s.admin.get(`/_admin/webhooks/${created.id}`)).body.error.message).toBe(`no webhook endpoint ${created.id}`);
    });

    it('lists a delivery with its payload, shows it alone, and refuses to redeliver one that has not failed', async () => {
      // Nothing listens there: attempts fail and are retried later, so the delivery stays pending.
      const endpoint = (await s.admin.post('/_admin/accounts/acc_a/webhooks', { url: 'http://127.0.0.1:9/hook' })).body.data;
      await s.admin.post('/_admin/accounts/acc_a/people', [{ id: 'per_hook', visits: [{ domain: 'beta.example', visitCount: 1, firstSeen: '2026-11-20T10:00:00Z', lastSeen: '2026-11-21T10:00:00Z' }] }]);
      const log = await s.admin.get(`/_admin/webhooks/${endpoint.id}/deliveries?status=pending&limit=10`);
      expect(log.status).toBe(200);
      expect(log.body.data).toHaveLength(1);
      const [delivery] = log.body.data;
      expect(delivery).toMatchObject({ endpointId: endpoint.id, event: 'person.identified', domain: 'beta.example', status: 'pending' });
      expect(delivery.payload.data.person.id).toBe('per_hook');
      expect((await s.admin.get(`/_admin/webhook-deliveries/${delivery.id}`)).body.data.id).toBe(delivery.id);
      const redeliver = await s.admin.post(`/_admin/webhook-deliveries/${delivery.id}/redeliver`);
      expect(redeliver.status).toBe(400);
      expect(redeliver.body.error.message).toMatch(/only a failed delivery can be redelivered/);
      const badStatus = await s.admin.get(`/_admin/webhooks/${endpoint.id}/deliveries?status=lost`);
      expect(errorCode(badStatus)).toBe('validation_error');
    });
  });
}
