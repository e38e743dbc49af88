import { describe, expect, it } from 'vitest';
import { errorCode } from '../support/client.ts';
import { TARGETS } from '../support/targets.ts';
import { serveAdminWorld, TOKEN, type AdminSetup } from './support.ts';

const visit = (domain = 'alpha.example') => [{ domain, visitCount: 2, firstSeen: '2026-11-20T10:00:00Z', lastSeen: '2026-11-21T10:00:00Z' }];
const NDJSON = { 'content-type': 'application/x-ndjson' };

for (const target of TARGETS) {
  describe(`loading data over HTTP (${target.name})`, () => {
    let s: AdminSetup;
    serveAdminWorld(target, (setup) => (s = setup));

    it('loads companies, people and events from JSON arrays, readable through the API at once', async () => {
      expect((await s.admin.post('/_admin/accounts/acc_a/companies', [{ id: 'co_new', name: 'New Co', domain: 'new.example' }])).body.data).toEqual({ received: 1, loaded: 1 });
      expect((await s.admin.post('/_admin/accounts/acc_a/people', [{ id: 'per_new', firstName: 'Ada', companyId: 'co_new', visits: visit() }])).body.data).toEqual({ received: 1, loaded: 1 });
      const event = { eventId: 'evt_new', personId: 'per_new', sessionId: 's1', eventType: 'page_view', timestamp: '2026-11-21T10:00:00Z', url: 'https://alpha.example/x', domain: 'alpha.example' };
      expect((await s.admin.post('/_admin/accounts/acc_a/events', [event, event])).body.data).toEqual({ received: 2, loaded: 1 });
      const person = await s.client.get('/v1/people/per_new', s.world.accountKey);
      expect(person.body.data).toMatchObject({ firstName: 'Ada', companyData: { companyId: 'co_new', name: 'New Co' } });
      expect((await s.client.get('/v1/people/per_new/events', s.world.accountKey)).body.data.map((e: any) => e.eventId)).toEqual(['evt_new']);
    });

    it('loads NDJSON, blank lines and a CRLF included', async () => {
      const body = `${JSON.stringify({ id: 'per_n1', visits: visit() })}\r\n\n${JSON.stringify({ id: 'per_n2', visits: visit('beta.example') })}\n`;
      const reply = await s.admin.post('/_admin/accounts/acc_a/people', body, NDJSON);
      expect(reply.body.data).toEqual({ received: 2, loaded: 2 });
      expect((await s.client.get('/v1/people/per_n2', s.world.accountKey)).body.data.domain).toBe('beta.example');
    });

    it('names the NDJSON line of an item api.admin refuses, and loads nothing from the body', async () => {
      const body = [{ id: 'per_ok', visits: visit() }, { id: 'per_bad', visits: visit('unknown.example') }].map((p) => JSON.stringify(p)).join('\n\n');
      const reply = await s.admin.post('/_admin/accounts/acc_a/people', body, NDJSON);
      expect(reply.status).toBe(400);
      expect(errorCode(reply)).toBe('bad_request');
      expect(reply.body.error.message).toBe('line 3: people[1].visits[0].domain unknown.example is not a registered site of this account');
      expect((await s.client.get('/v1/people/per_ok', s.world.accountKey)).status).toBe(404);
    });

    it('refuses an empty body or an empty array, as JSON or NDJSON, rather than loading nothing', async () => {
      for (const [body, type] of [['', NDJSON], ['\n\n', NDJSON], ['', { 'content-type': 'application/json' }]] as const) {
        const reply = await s.admin.post('/_admin/accounts/acc_a/people', body, type);
        expect([reply.status, errorCode(reply)]).toEqual([400, 'bad_request']);
        expect(reply.body.error.message).toBe('The request body is empty: send people as a JSON array or as NDJSON, one object per line.');
      }
      const none = await s.admin.post('/_admin/accounts/acc_a/events', []);
      expect([none.status, errorCode(none), none.body.error.message]).toEqual([400, 'bad_request', 'The request body holds no events: send at least one, as a JSON array or as NDJSON, one object per line.']);
    });

    it('names a required field that is missing as missing', async () => {
      const event = { eventId: 'evt_m', personId: 'per_m', sessionId: 's1', eventType: 'page_view', timestamp: '2026-11-21T10:00:00Z', url: 'https://alpha.example/x' };
      expect((await s.admin.post('/_admin/accounts/acc_a/people', [{ id: 'per_m', visits: visit() }])).status).toBe(200);
      const cases: [string, unknown, string][] = [
        ['events', [event], 'events[0].domain is missing'],
        ['events', [{ ...event, domain: 'alpha.example', timestamp: undefined }], 'events[0].timestamp is missing'],
        ['events', [{ ...event, domain: 'alpha.example', eventType: undefined }], 'events[0].eventType is missing'],
        ['people', [{ id: 'per_x' }], 'people[0].visits is missing'],
        ['people', [{ id: 'per_x', visits: [{ visitCount: 1, firstSeen: '2026-11-20T10:00:00Z', lastSeen: '2026-11-21T10:00:00Z' }] }], 'people[0].visits[0].domain is missing'],
        ['people', [{ visits: visit() }], 'people[0].id is missing'],
        ['companies', [{ id: 'co_x' }], 'companies[0].name is missing'],
      ];
      for (const [kind, body, message] of cases) {
        const reply = await s.admin.post(`/_admin/accounts/acc_a/${kind}`, body);
        expect([reply.status, reply.body.error?.message]).toEqual([400, message]);
      }
    });

    it('names a line that is not JSON, or not an object', async () => {
      const notJson = await s.admin.post('/_admin/accounts/acc_a/companies', `{"id":"co_1","name":"A"}\n{"id":\n`, NDJSON);
      expect(notJson.body.error.message).toBe('line 2: not valid JSON.');
      const notObject = await s.admin.post('/_admin/accounts/acc_a/companies', `{"id":"co_1","name":"A"}\n[1]\n`, NDJSON);
      expect(notObject.body.error.message).toBe('line 2: companies[1] is not a JSON object.');
    });

    it('gives the admin surface\'s message for a bad JSON array item or an unknown account', async () => {
      const bad = await s.admin.post('/_admin/accounts/acc_a/companies', [{ id: 'co_x', name: 'X', employeeCount: -1 }]);
      expect(bad.status).toBe(400);
      expect(bad.body.error.message).toMatch(/^companies\[0\]\.employeeCount/);
      const nobody = await s.admin.post('/_admin/accounts/acc_zz/companies', [{ id: 'co_x', name: 'X' }]);
      expect(nobody.body.error.message).toBe('no account acc_zz');
    });

    it('refuses a load body past 32 MiB while it streams in, and a control body past 64 KiB', async () => {
      const line = `${JSON.stringify({ id: 'co_pad', name: 'x'.repeat(1024 * 1024) })}\n`;
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          // 40 lines of 1 MiB: past the bound, which must stop the read before the end.
          if (sent++ < 40) controller.enqueue(new TextEncoder().encode(line));
          else controller.close();
        },
      });
      const res = await s.call('/_admin/accounts/acc_a/companies', { method: 'POST', body, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/x-ndjson' }, duplex: 'half' } as RequestInit);
      expect(res.status).toBe(400);
      expect((await res.json()).error.message).toMatch(/at most 33554432 bytes/);
      const big = await s.admin.post('/_admin/accounts', { id: 'acc_big', name: 'x'.repeat(70 * 1024) });
      expect(big.status).toBe(400);
      expect(big.body.error.message).toMatch(/at most 65536 bytes/);
    });

    it('refuses a body that is not an array, not JSON, or of another type', async () => {
      expect((await s.admin.post('/_admin/accounts/acc_a/people', { id: 'per_x' })).body.error.message).toMatch(/JSON array of people/);
      expect((await s.admin.post('/_admin/accounts/acc_a/people', '[{')).body.error.message).toMatch(/not valid JSON/);
      const csv = await s.admin.post('/_admin/accounts/acc_a/people', 'id\nper_x\n', { 'content-type': 'text/csv' });
      expect(csv.status).toBe(400);
      expect(csv.body.error.message).toMatch(/application\/x-ndjson/);
    });
  });
}
