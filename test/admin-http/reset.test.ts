import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createApi, ManualClock } from '../../adapters/node/index.ts';
import { errorCode, runExport } from '../support/client.ts';
import { Gate } from '../support/gate.ts';
import { inProcess, MATRIX, TARGETS } from '../support/targets.ts';
import { adminClient, serveAdminWorld, TOKEN, type AdminSetup } from './support.ts';

const VISIT = [{ domain: 'alpha.example', visitCount: 1, firstSeen: '2026-11-20T10:00:00Z', lastSeen: '2026-11-21T10:00:00Z' }];

for (const target of MATRIX) {
  describe(`POST /_admin/reset (${target.name})`, () => {
    let s: AdminSetup;
    serveAdminWorld(target, (setup) => (s = setup), { rateLimits: { accountPerHour: 20 } });

    it('restores the data, keys, limits and webhooks the server started with', async () => {
      const { world, admin, client } = s;
      // Changes of every kind.
      expect((await admin.post('/_admin/accounts/acc_a/people', [{ id: 'per_new', visits: VISIT }])).status).toBe(200);
      expect((await admin.post('/_admin/accounts', { id: 'acc_c', name: 'Partner C' })).status).toBe(200);
      const issued = await admin.post('/_admin/accounts/acc_a/keys', { label: 'temporary' });
      const keys = await admin.get('/_admin/accounts/acc_a/keys');
      const worldKeyId = keys.body.data.find((k: any) => k.label === 'second').keyId;
      expect((await admin.post(`/_admin/keys/${worldKeyId}/revoke`)).status).toBe(200);
      const hook = await admin.post('/_admin/accounts/acc_a/webhooks', { url: 'http://127.0.0.1:9/hook' });
      expect(hook.status).toBe(200);
      const spent = await client.get('/v1/people/per_new', issued.body.data.key);
      expect(spent.status).toBe(200);
      expect((await client.get('/v1/stats', world.secondAccountKey)).status).toBe(403);

      const reset = await admin.post('/_admin/reset');
      expect(reset.status).toBe(200);
      expect(reset.body.data.reset).toBe(true);

      // Keys: the revoked one works again; limits: a fresh window (20 per hour, this request the first).
      const revived = await client.get('/v1/stats', world.secondAccountKey);
      expect(revived.status).toBe(200);
      expect(revived.headers.get('x-ratelimit-remaining')).toBe('19');
      expect((await client.get('/v1/stats', issued.body.data.key)).status).toBe(403);
      // The person and account loaded since are gone, the world's own data is back.
      expect((await client.get('/v1/people/per_new', world.accountKey)).status).toBe(404);
      expect((await client.get('/v1/people/per_001', world.accountKey)).status).toBe(200);
      expect((await admin.get('/_admin/accounts')).body.data.map((a: any) => a.id)).toEqual(['acc_a', 'acc_b']);
      // Webhook endpoints made since are gone.
      expect((await admin.get('/_admin/accounts/acc_a/webhooks')).body.data).toEqual([]);
      expect((await admin.get(`/_admin/webhooks/${hook.body.data.id}`)).status).toBe(400);
    });

    it('keeps what the database held when the server started, however it was loaded, across several resets', async () => {
      // The world was loaded through api.admin before the baseline: that is user data, and it stays.
      for (let i = 0; i < 2; i++) {
        await s.admin.post('/_admin/accounts/acc_a/companies', [{ id: `co_extra${i}`, name: 'Extra' }]);
        expect((await s.admin.post('/_admin/reset')).status).toBe(200);
        expect((await s.client.get(`/v1/companies/co_extra${i}`, s.world.accountKey)).status).toBe(404);
        const people = await s.client.walk('/v1/people', s.world.accountKey);
        expect(people.rows).toHaveLength(90);
      }
    });

    it('answers several resets asked for at once, ending at the baseline', async () => {
      await s.admin.post('/_admin/accounts', { id: 'acc_c', name: 'C' });
      const replies = await Promise.all([s.admin.post('/_admin/reset'), s.admin.post('/_admin/reset'), s.admin.post('/_admin/reset')]);
      expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
      expect((await s.admin.get('/_admin/accounts')).body.data.map((a: any) => a.id)).toEqual(['acc_a', 'acc_b']);
      expect((await s.client.get('/v1/people/per_001', s.world.accountKey)).status).toBe(200);
    });

    it('clears the hourly windows, so a spent budget is whole again', async () => {
      let last;
      for (let i = 0; i < 21; i++) last = await s.client.get('/v1/stats', s.world.accountKey);
      expect(last!.status).toBe(429);
      await s.admin.post('/_admin/reset');
      const after = await s.client.get('/v1/stats', s.world.accountKey);
      expect(after.status).toBe(200);
      expect(after.headers.get('x-ratelimit-remaining')).toBe('19');
    });
  });

}

// Exports run on SQLite only for now (the Postgres backend does not run them yet).
for (const target of TARGETS) {
  describe(`POST /_admin/reset and exports (${target.name})`, () => {
    const gate = new Gate();
    let s: AdminSetup;
    serveAdminWorld(target, (setup) => (s = setup), { exports: { pace: gate.pace } });

    it('leaves the data as it was and exports running when restoring fails', async () => {
      gate.open();
      // A baseline missing its accounts cannot be restored: the sites would have no account.
      await sql`drop table _baseline_accounts`.execute(s.api.db);
      const reply = await s.admin.post('/_admin/reset');
      expect(reply.status).toBe(500);
      expect(errorCode(reply)).toBe('internal_error');
      expect((await s.client.get('/v1/people/per_001', s.world.accountKey)).status).toBe(200);
      const run = await runExport(s.client, s.world.accountKey, undefined, { idle: () => s.api.exportsIdle() });
      expect(run.csv.rows.length).toBe(90);
    });

    it('drops an export finished since the start, and its link', async () => {
      gate.open();
      const run = await runExport(s.client, s.world.accountKey, undefined, { idle: () => s.api.exportsIdle() });
      expect((await s.admin.post('/_admin/reset')).status).toBe(200);
      expect((await s.client.get(run.started.body.statusUrl, s.world.accountKey)).status).toBe(404);
      expect((await s.client.download(run.job.downloadUrl)).status).toBe(404);
    });

    it('stops the running export, drops its job, and runs exports started afterwards', async () => {
      gate.close();
      const started = await s.client.send('POST', '/v1/exports', s.world.accountKey);
      expect(started.status).toBe(202);
      expect((await s.client.get(started.body.statusUrl, s.world.accountKey)).body.status).toBe('processing');
      const reset = s.admin.post('/_admin/reset');
      // The run is held at a step: letting it go shows it the stop.
      gate.open();
      expect((await reset).status).toBe(200);
      expect((await s.client.get(started.body.statusUrl, s.world.accountKey)).status).toBe(404);
      const again = await runExport(s.client, s.world.accountKey, { hasPhone: false }, { idle: () => s.api.exportsIdle() });
      expect(again.job.status).toBe('complete');
      expect(again.csv.rows.length).toBe(90);
    });
  });
}

describe('POST /_admin/reset without a baseline', () => {
  it('is a 400 naming api.saveBaseline, and changes nothing', async () => {
    const api = await createApi({ database: ':memory:', clock: new ManualClock(), admin: { token: TOKEN }, onError: () => undefined });
    await api.admin.createAccount({ id: 'acc_x', name: 'X' });
    const admin = adminClient((await inProcess.start(api)).call);
    const reply = await admin.post('/_admin/reset');
    expect(reply.status).toBe(400);
    expect(errorCode(reply)).toBe('bad_request');
    expect(reply.body.error.message).toMatch(/saveBaseline/);
    expect(await api.admin.listAccounts()).toEqual([{ id: 'acc_x', name: 'X' }]);
    await api.close();
  });
});
