import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS } from '../../core/webhooks/schedule.ts';
import { TARGETS } from '../support/targets.ts';
import { serveAdminWorld, type AdminSetup } from './support.ts';

/** A receiver on loopback that answers every delivery with the status the test sets. */
function receiver() {
  const state = { status: 500, received: 0, url: '' };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      state.received++;
      res.writeHead(state.status).end();
    });
  });
  return {
    state,
    start: () => new Promise<void>((done) => server.listen(0, '127.0.0.1', () => ((state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`), done()))),
    stop: () => new Promise<void>((done) => server.close(() => done())),
  };
}

for (const target of TARGETS) {
  describe(`the admin clock and webhook retries (${target.name})`, () => {
    const hook = receiver();
    let s: AdminSetup;
    beforeAll(() => hook.start());
    afterAll(() => hook.stop());
    serveAdminWorld(target, (setup) => (s = setup));

    it('brings every retry due by moving the clock, until the delivery fails; a redelivery then gets through', async () => {
      hook.state.status = 500;
      hook.state.received = 0;
      const endpoint = (await s.admin.post('/_admin/accounts/acc_a/webhooks', { url: hook.state.url })).body.data;
      await s.admin.post('/_admin/accounts/acc_a/people', [{ id: 'per_retry', visits: [{ domain: 'beta.example', visitCount: 1, firstSeen: '2026-11-20T10:00:00Z', lastSeen: '2026-11-21T10:00:00Z' }] }]);
      for (let i = 0; i < MAX_ATTEMPTS; i++) {
        await s.api.webhooks.deliverDue();
        // Past the longest step of the schedule (24 h, plus its jitter).
        await s.admin.post('/_admin/clock', { advanceSeconds: 27 * 3600 });
      }
      await s.api.webhooks.idle();
      expect(hook.state.received).toBe(MAX_ATTEMPTS);
      const [failed] = (await s.admin.get(`/_admin/webhooks/${endpoint.id}/deliveries?status=failed`)).body.data;
      expect(failed.attempts).toHaveLength(MAX_ATTEMPTS);
      expect(failed.attempts.every((a: any) => a.status === 500)).toBe(true);

      hook.state.status = 204;
      const requeued = await s.admin.post(`/_admin/webhook-deliveries/${failed.id}/redeliver`);
      expect(requeued.body.data.status).toBe('pending');
      await s.api.webhooks.deliverDue();
      await s.api.webhooks.idle();
      const delivered = (await s.admin.get(`/_admin/webhook-deliveries/${failed.id}`)).body.data;
      expect(delivered.status).toBe('delivered');
      expect(delivered.attempts.at(-1).status).toBe(204);
    });
  });
}
