import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MATRIX } from '../support/targets.ts';
import { Receiver } from '../webhooks/receiver.ts';
import { verifyAt } from '../webhooks/setup.ts';
import { serveAdminWorld, type AdminSetup } from './support.ts';

/*
 * The delivery log over admin HTTP as the console's inbox reads it: each attempt's headers, the
 * body it sent (when one delivery is read), and test events put in the outbox by an admin.
 */
for (const target of MATRIX) {
  describe(`the webhook inbox and test events over admin HTTP (${target.name})`, () => {
    let receiver: Receiver;
    let s: AdminSetup;
    beforeAll(async () => {
      receiver = await Receiver.start();
    });
    afterAll(() => receiver.close());
    beforeEach(() => {
      receiver.received.length = 0;
      receiver.fallback = { status: 200 };
    });
    serveAdminWorld(target, (setup) => (s = setup));

    const endpoint = async (events = ['person.identified']) => (await s.admin.post('/_admin/accounts/acc_a/webhooks', { url: receiver.url, events })).body.data as { id: string; secret: string };
    const sendAll = async () => {
      await s.api.webhooks.deliverDue();
      await s.api.webhooks.idle();
    };

    it('logs the headers each attempt sent, and the body it sent when one delivery is read, whose signature verifies with the secret', async () => {
      const { id, secret } = await endpoint();
      receiver.answers = [{ status: 503 }];
      await s.admin.post('/_admin/accounts/acc_a/people', [{ id: 'per_inbox', visits: [{ domain: 'gamma.example', visitCount: 1, firstSeen: '2026-11-20T10:00:00Z', lastSeen: '2026-11-21T10:00:00Z' }] }]);
      await sendAll();
      await s.admin.post('/_admin/clock', { advanceSeconds: 60 });
      await sendAll();
      expect(receiver.received).toHaveLength(2);

      const [listed] = (await s.admin.get(`/_admin/webhooks/${id}/deliveries`)).body.data;
      expect(listed.status).toBe('delivered');
      expect(listed.test).toBe(false);
      expect(listed.attempts.map((a: any) => a.status)).toEqual([503, 200]);
      expect(listed.attempts.map((a: any) => a.headers)).toEqual(receiver.received.map((r) => ({
        'content-type': 'application/json',
        'webhook-id': listed.id,
        'webhook-timestamp': r.headers['webhook-timestamp'],
        'webhook-signature': r.headers['webhook-signature'],
      })));
      // Lists leave the bodies out: one delivery read alone carries them.
      expect(listed.attempts.some((a: any) => 'body' in a)).toBe(false);

      const one = (await s.admin.get(`/_admin/webhook-deliveries/${listed.id}`)).body.data;
      expect(one.attempts.map((a: any) => a.body)).toEqual(receiver.received.map((r) => r.body));
      for (const attempt of one.attempts) {
        const sent = { headers: attempt.headers, body: attempt.body, json: undefined };
        expect(verifyAt(secret, sent, Number(attempt.headers['webhook-timestamp']) * 1000)).toMatchObject({ webhookId: listed.id, data: { person: { id: 'per_inbox' } } });
      }
    });

    it('sends a test person.identified about the newest person through the outbox, signed, logged and marked test', async () => {
      const { id, secret } = await endpoint();
      const queued = await s.admin.post(`/_admin/webhooks/${id}/test`);
      expect(queued.status).toBe(200);
      expect(queued.body.data).toMatchObject({ endpointId: id, event: 'person.identified', status: 'pending', test: true, domain: 'alpha.example', attempts: [] });
      expect(queued.body.data.payload.data.person).toMatchObject({ id: 'per_000', email: 'person0@mail.example' });
      await sendAll();
      const [got] = receiver.withId(queued.body.data.id);
      expect(verifyAt(secret, got!, Number(got!.headers['webhook-timestamp']) * 1000)).toMatchObject({ event: 'person.identified', domain: 'alpha.example', data: { person: { id: 'per_000' } } });
      const logged = (await s.admin.get(`/_admin/webhook-deliveries/${queued.body.data.id}`)).body.data;
      expect(logged).toMatchObject({ status: 'delivered', test: true });
      expect(logged.attempts[0].body).toBe(got!.body);
    });

    it('sends a test person.activity with the newest events of the person and site of the newest event', async () => {
      const { id } = await endpoint(['person.activity']);
      const queued = (await s.admin.post(`/_admin/webhooks/${id}/test`, { event: 'person.activity' })).body.data;
      expect(queued).toMatchObject({ event: 'person.activity', test: true, domain: 'badalpha.example', clientRef: 'bad' });
      expect(queued.payload.data).toMatchObject({ person: { id: 'per_002' }, eventCount: 1, truncated: false, events: [{ eventId: 'evt_x1' }] });
      await sendAll();
      expect(receiver.withId(queued.id)).toHaveLength(1);
    });

    it('refuses a test event the endpoint would not get, naming why', async () => {
      const { id } = await endpoint();
      const refused = async (path: string, body?: unknown) => {
        const answer = await s.admin.post(path, body);
        expect(answer.status).toBe(400);
        expect(answer.body.error.code).toBe('bad_request');
        return answer.body.error.message as string;
      };
      expect(await refused(`/_admin/webhooks/${id}/test`, { event: 'person.activity' })).toBe(`endpoint ${id} does not take person.activity (it takes person.identified)`);
      expect(await refused(`/_admin/webhooks/${id}/test`, { event: 'person.deleted' })).toMatch(/^event: "person\.deleted" is not an event kind/);
      expect(await refused(`/_admin/webhooks/${id}/test`, { event: 7 })).toMatch(/^event must be a string/);
      expect(await refused(`/_admin/webhooks/${id}/test`, { kind: 'person.identified' })).toMatch(/^"kind" is not an option of a test event/);
      expect(await refused('/_admin/webhooks/whe_nowhere/test')).toBe('no webhook endpoint whe_nowhere');
      await s.admin.send('PATCH', `/_admin/webhooks/${id}`, { enabled: false });
      expect(await refused(`/_admin/webhooks/${id}/test`)).toBe(`endpoint ${id} is disabled; enable it before sending a test event`);
      await s.admin.post('/_admin/accounts', { id: 'acc_empty', name: 'Nobody yet' });
      const empty = (await s.admin.post('/_admin/accounts/acc_empty/webhooks', { url: receiver.url })).body.data.id;
      expect(await refused(`/_admin/webhooks/${empty}/test`)).toBe('account acc_empty has no people to report in a test event yet; load some first');
      await sendAll();
      expect(receiver.received).toEqual([]);
    });
  });
}
