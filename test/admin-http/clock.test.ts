import { describe, expect, it } from 'vitest';
import { createApi } from '../../adapters/node/index.ts';
import { errorCode, runExport } from '../support/client.ts';
import { inProcess, TARGETS } from '../support/targets.ts';
import { NOW } from '../support/world.ts';
import { adminClient, serveAdminWorld, TOKEN, type AdminSetup } from './support.ts';

for (const target of TARGETS) {
  describe(`POST /_admin/clock (${target.name})`, () => {
    let s: AdminSetup;
    serveAdminWorld(target, (setup) => (s = setup));

    it('tells the server\'s time and that it can move', async () => {
      const reply = await s.admin.get('/_admin/clock');
      expect(reply.body.data).toEqual({ now: new Date(NOW).toISOString().replace('.000', ''), movable: true });
    });

    it('moves a cursor past its hour, so the next page is invalid_cursor', async () => {
      const first = await s.client.get('/v1/people?limit=10', s.world.accountKey);
      const cursor = first.body.pagination.nextCursor;
      expect((await s.client.get(`/v1/people?limit=10&cursor=${encodeURIComponent(cursor)}`, s.world.accountKey)).status).toBe(200);
      const moved = await s.admin.post('/_admin/clock', { advanceSeconds: 3601 });
      expect(moved.status).toBe(200);
      expect(moved.body.data.now).toBe(new Date(NOW + 3_601_000).toISOString().replace('.000', ''));
      const late = await s.client.get(`/v1/people?limit=10&cursor=${encodeURIComponent(cursor)}`, s.world.accountKey);
      expect(late.status).toBe(400);
      expect(errorCode(late)).toBe('invalid_cursor');
    });

    it('moves a download link past its 900 seconds, and the Date header with it', async () => {
      const run = await runExport(s.client, s.world.accountKey, undefined, { idle: () => s.api.exportsIdle() });
      expect((await s.client.download(run.job.downloadUrl)).status).toBe(200);
      const to = new Date(NOW + 901_000).toISOString();
      expect((await s.admin.post('/_admin/clock', { now: to })).status).toBe(200);
      const expired = await s.client.download(run.job.downloadUrl);
      expect(expired.status).toBe(403);
      expect(expired.headers.get('date')).toBe(new Date(NOW + 901_000).toUTCString());
    });

    it('only moves forward, and reset takes it back to the base clock', async () => {
      for (const body of [{ advanceSeconds: -5 }, { now: new Date(NOW - 1000).toISOString() }, { advanceSeconds: 1.5 }, {}, { advanceSeconds: 1, now: '2027-01-01T00:00:00Z' }, { now: 'tomorrow' }]) {
        const reply = await s.admin.post('/_admin/clock', body);
        expect(reply.status, JSON.stringify(body)).toBe(400);
        expect(errorCode(reply)).toBe('bad_request');
      }
      await s.admin.post('/_admin/clock', { advanceSeconds: 86_400 });
      await s.admin.post('/_admin/reset');
      expect((await s.admin.get('/_admin/clock')).body.data.now).toBe(new Date(NOW).toISOString().replace('.000', ''));
    });
  });
}

describe('POST /_admin/clock on a server whose clock cannot move', () => {
  it('is a 400 saying so', async () => {
    const api = await createApi({ database: ':memory:', clock: { now: () => NOW }, admin: { token: TOKEN }, onError: () => undefined });
    const admin = adminClient((await inProcess.start(api)).call);
    const reply = await admin.post('/_admin/clock', { advanceSeconds: 60 });
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toMatch(/cannot be moved/);
    expect((await admin.get('/_admin/clock')).body.data).toEqual({ now: new Date(NOW).toISOString().replace('.000', ''), movable: false });
    await api.close();
  });
});
