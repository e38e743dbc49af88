import { describe, expect, it } from 'vitest';
import { errorCode, runExport } from '../support/client.ts';
import { MATRIX, TARGETS, serveWorld, type Client } from '../support/targets.ts';
import { createWorld, type World } from '../support/world.ts';

describe.each(MATRIX)('responses and the error envelope ($name)', (target) => {
  let world: World;
  let client: Client;
  let call: (path: string, init?: RequestInit) => Promise<Response>;
  serveWorld(target, {}, (w, c, raw) => ((world = w), (client = c), (call = raw)));

  it('gives every response, success or error, its own X-Request-Id', async () => {
    const replies = [
      await client.get('/v1/health'),
      await client.get('/v1/people', world.accountKey),
      await client.get('/v1/people'),
      await client.get('/v1/people', 'bad'),
      await client.get('/v1/nowhere'),
      await client.get('/v1/people?limit=0', world.accountKey),
      await client.send('DELETE', '/v1/people', world.accountKey),
    ];
    const ids = replies.map((r) => r.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('dates every response by the API clock, so clients can reason in server time', async () => {
    for (const reply of [await client.get('/v1/health'), await client.get('/v1/people', world.accountKey), await client.get('/v1/nowhere')]) {
      expect(reply.headers.get('date')).toBe('Sat, 21 Nov 2026 12:00:00 GMT');
    }
  });

  it('answers an unknown path with the 404 envelope', async () => {
    for (const path of ['/v1/nowhere', '/', '/v2/people', '/v1/people/per_001/events/extra']) {
      const reply = await client.get(path, world.accountKey);
      expect(reply.status, path).toBe(404);
      expect(errorCode(reply)).toBe('not_found');
    }
  });

  it('answers a wrong method with 405 in the envelope and names the allowed methods', async () => {
    for (const [method, path, allow] of [
      ['DELETE', '/v1/people', 'GET'],
      ['POST', '/v1/people/per_001', 'GET'],
      ['PUT', '/v1/stats', 'GET'],
      ['GET', '/v1/exports', 'POST'],
      ['POST', '/v1/health', 'GET'],
    ] as const) {
      const reply = await client.send(method, path, world.accountKey);
      expect(reply.status, `${method} ${path}`).toBe(405);
      expect(errorCode(reply)).toBe('method_not_allowed');
      expect(reply.headers.get('allow')).toBe(allow);
    }
  });

  it('answers HEAD and OPTIONS on /v1/people with 405 and Allow: GET', async () => {
    const head = await call('/v1/people', { method: 'HEAD', headers: { 'x-api-key': world.accountKey } });
    expect(head.status).toBe(405);
    expect(head.headers.get('allow')).toBe('GET');
    await head.arrayBuffer();
    const options = await client.send('OPTIONS', '/v1/people', world.accountKey);
    expect(options.status).toBe(405);
    expect(errorCode(options)).toBe('method_not_allowed');
    expect(options.headers.get('allow')).toBe('GET');
  });

  it('routes before it authenticates: an unknown path without a key is 404, not 401', async () => {
    for (const path of ['/v1/nowhere', '/v1/people/per_001/events/extra']) {
      const reply = await client.get(path);
      expect(reply.status, path).toBe(404);
      expect(errorCode(reply), path).toBe('not_found');
    }
  });

  it('answers JSON with a charset on every endpoint', async () => {
    for (const path of ['/v1/health', '/v1/people', '/v1/people/per_001/events', '/v1/nowhere']) {
      expect((await client.get(path, world.accountKey)).headers.get('content-type')).toBe('application/json; charset=utf-8');
    }
  });

  it('answers 404 for a person or company that does not exist, naming the id', async () => {
    for (const path of ['/v1/people/per_missing', '/v1/people/per_missing/events', '/v1/companies/co_missing']) {
      const reply = await client.get(path, world.accountKey);
      expect(reply.status).toBe(404);
      expect(errorCode(reply)).toBe('not_found');
      expect(reply.body.error.message).toMatch(/_missing/);
    }
  });

  it('reads percent-encoded ids and rejects broken percent-encoding with 400', async () => {
    expect((await client.get('/v1/people/per%5F001', world.accountKey)).body.data.id).toBe('per_001');
    const reply = await client.get('/v1/people/per%E0%A4', world.accountKey);
    expect(reply.status).toBe(400);
    expect(errorCode(reply)).toBe('bad_request');
  });
});

// Exports run on SQLite only for now (issue 15's later step brings them to Postgres).
describe.each(TARGETS)('rate-limit headers on an export and its download ($name)', (target) => {
  let world: World;
  let client: Client;
  serveWorld(target, {}, (w, c) => ((world = w), (client = c)));

  it('carries X-RateLimit-Limit and X-RateLimit-Remaining on every kind of response', async () => {
    const exported = await runExport(client, world.accountKey, { regions: ['EMEA'] }, { idle: () => world.api.exportsIdle() });
    const replies: [string, { status: number; headers: Headers }][] = [
      ['200 list', await client.get('/v1/people', world.accountKey)],
      ['202 export start', exported.started],
      ['200 CSV download', exported.file],
      ['400', await client.get('/v1/people?limit=0', world.accountKey)],
      ['401', await client.get('/v1/people')],
      ['403', await client.get('/v1/people', 'bad')],
      ['404', await client.get('/v1/nowhere', world.accountKey)],
      ['405', await client.send('DELETE', '/v1/people', world.accountKey)],
    ];
    expect(replies.map(([, r]) => r.status)).toEqual([200, 202, 200, 400, 401, 403, 404, 405]);
    expect(exported.file.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    for (const [what, reply] of replies) {
      expect(reply.headers.get('x-ratelimit-limit'), what).toBe('1000');
      expect(reply.headers.get('x-ratelimit-remaining'), what).toMatch(/^\d+$/);
    }
  });
});

describe('an unexpected fault', () => {
  it('answers 500 internal_error without a stack trace or the fault text', async () => {
    const world = await createWorld();
    const api = { fetch: world.api.fetch };
    await world.api.db.destroy();
    const reply = await api.fetch(new Request('http://api.test/v1/people', { headers: { 'x-api-key': world.accountKey } }));
    const text = await reply.text();
    expect(reply.status).toBe(500);
    expect(JSON.parse(text)).toEqual({ error: { code: 'internal_error', message: expect.any(String), status: 500 } });
    expect(text).not.toMatch(/at .*\.ts|Error:|destroyed|driver/i);
    expect(reply.headers.get('x-request-id')).toMatch(/^req_/);
  });
});
