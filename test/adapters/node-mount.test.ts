import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toMiddleware, toNodeListener, type FetchHandler } from '../../adapters/node/index.ts';
import { MOUNT_HEADER, mountPrefix, routedPath } from '../../core/http/mount.ts';
import { errorCode, replyOf } from '../support/client.ts';
import { TARGETS } from '../support/targets.ts';
import { createWorld, type World } from '../support/world.ts';

/**
 * Embedding the API in an existing Node server: as a listener the host hands a path prefix
 * to, and as Connect/Express-style middleware. Each suite also starts the API on its own
 * through a target, so the embedded answers can be compared with the reference ones.
 */

/** What the API was handed: method, the path it routes (after the mount point) with query, headers and the body text. */
interface Seen {
  method: string;
  url: string;
  mountedAt: string;
  headers: Headers;
  body: string;
}

/** Wraps the API so a test can see each Request exactly as the adapter built it. */
function recording(api: FetchHandler): FetchHandler & { seen: Seen[] } {
  const seen: Seen[] = [];
  return {
    seen,
    async fetch(request) {
      const url = new URL(request.url);
      const body = request.body ? await request.clone().text() : '';
      const mountedAt = mountPrefix(request);
      seen.push({ method: request.method, url: `${routedPath(url.pathname, mountedAt)}${url.search}`, mountedAt, headers: request.headers, body });
      return api.fetch(request);
    },
  };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function stop(server: Server): Promise<void> {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** Reads a whole Node request body. */
function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** A response's headers without the ones that differ on every response. */
function stableHeaders(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (!['x-request-id', 'date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'x-ratelimit-remaining'].includes(name)) out[name] = value;
  });
  return out;
}

type Middleware = (req: IncomingMessage & { body?: unknown }, res: ServerResponse, next: (err?: unknown) => void) => void;

/** A minimal Connect-style app: middlewares run in order, each passing on with `next()`. */
function connectApp(middlewares: Middleware[]) {
  return (req: IncomingMessage, res: ServerResponse) => {
    let i = 0;
    const next = (err?: unknown): void => {
      if (err) {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`host error: ${String(err)}`);
        return;
      }
      const mw = middlewares[i++];
      if (!mw) {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('host: nothing here');
        return;
      }
      try {
        mw(req, res, next);
      } catch (e) {
        next(e);
      }
    };
    next();
  };
}

describe.each(TARGETS)('embedding the API in a Node server (reference: $name)', (target) => {
  let world: World;
  let reference: (path: string, init?: RequestInit) => Promise<Response>;
  let closeReference: () => Promise<void>;

  beforeAll(async () => {
    world = await createWorld();
    const started = await target.start(world.api);
    reference = started.call;
    closeReference = started.close;
  });
  afterAll(() => closeReference());

  describe('as a listener the host hands /api to', () => {
    let host: Server;
    let base: string;
    let api: ReturnType<typeof recording>;
    const hostHits: string[] = [];

    beforeAll(async () => {
      api = recording(world.api);
      const apiListener = toNodeListener(api, { prefix: '/api' });
      host = createServer((req, res) => {
        const url = req.url ?? '/';
        if (url === '/health-of-host') {
          hostHits.push(url);
          res.writeHead(200, { 'content-type': 'text/plain', 'x-served-by': 'host' });
          res.end('host is fine');
        } else if (url === '/hello' || url.startsWith('/hello?')) {
          hostHits.push(url);
          res.writeHead(200, { 'content-type': 'application/json', 'x-served-by': 'host' });
          res.end(JSON.stringify({ hello: new URL(url, 'http://h').searchParams.get('name') ?? 'world' }));
        } else if (url === '/api' || url.startsWith('/api/') || url.startsWith('/api?')) {
          apiListener(req, res);
        } else {
          hostHits.push(url);
          res.writeHead(404, { 'content-type': 'text/plain' });
          res.end('host: not found');
        }
      });
      base = await listen(host);
    });
    afterAll(() => stop(host));

    it('keeps serving the host’s own routes, untouched by the API', async () => {
      const health = await fetch(`${base}/health-of-host`);
      expect([health.status, health.headers.get('x-served-by'), await health.text()]).toEqual([200, 'host', 'host is fine']);
      const hello = await fetch(`${base}/hello?name=Ada`, { headers: { 'x-api-key': world.accountKey } });
      expect(hello.status).toBe(200);
      expect(await hello.json()).toEqual({ hello: 'Ada' });
      expect(hello.headers.get('x-request-id')).toBeNull();
      const apiLike = await fetch(`${base}/apix/v1/people`, { headers: { 'x-api-key': world.accountKey } });
      expect([apiLike.status, await apiLike.text()]).toEqual([404, 'host: not found']);
      expect(hostHits).toEqual(['/health-of-host', '/hello?name=Ada', '/apix/v1/people']);
    });

    it('answers /api/v1/people with the API, exactly as the API answers /v1/people on its own', async () => {
      const init = { headers: { 'x-api-key': world.accountKey } };
      const mounted = await fetch(`${base}/api/v1/people?limit=7&hot_leads=true`, init);
      const direct = await reference('/v1/people?limit=7&hot_leads=true', init);
      expect(mounted.status).toBe(200);
      const body = await mounted.json();
      expect(body.data).toHaveLength(7);
      expect(body.data.every((p: any) => p.isHotLead)).toBe(true);
      // Cursors embed an expiry and a signature that are the same for both, so bodies match exactly.
      expect(body).toEqual(await direct.json());
      expect(stableHeaders(mounted)).toEqual(stableHeaders(direct));
      expect(mounted.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
      // The API was told its mount point, routed the path after it, and saw the query as sent.
      expect(api.seen.at(-1)!.url).toBe('/v1/people?limit=7&hot_leads=true');
      expect(api.seen.at(-1)!.mountedAt).toBe('/api');
    });

    it('follows a cursor through the mount to the end of the list', async () => {
      const ids: string[] = [];
      let cursor: string | undefined;
      do {
        const res = await fetch(`${base}/api/v1/people?limit=40${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { headers: { 'x-api-key': world.scopedKeys['beta.example']! } });
        expect(res.status).toBe(200);
        const body = await res.json();
        ids.push(...body.data.map((p: any) => p.id));
        cursor = body.pagination.nextCursor;
      } while (cursor);
      const expected = world.people.filter((p) => p.visits.some((v) => v.domain === 'beta.example')).map((p) => p.id);
      expect([...ids].sort()).toEqual([...expected].sort());
    });

    it('answers an unknown path under the prefix with the API’s own 404 envelope', async () => {
      const res = await fetch(`${base}/api/v1/nope`, { headers: { 'x-api-key': world.accountKey } });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('x-request-id')).toMatch(/^req_/);
      const body = await res.json();
      expect(body).toEqual({ error: { code: 'not_found', message: expect.stringContaining('/v1/nope'), status: 404 } });
      expect(body.error.message).not.toContain('/api');
      const root = await replyOf(await fetch(`${base}/api`));
      expect(root.status).toBe(404);
      expect(errorCode(root)).toBe('not_found');
      expect(api.seen.at(-1)!.url).toBe('/');
    });

    it('answers an export’s start with a statusUrl under /api that a client follows from the host’s root to the job', async () => {
      const started = await fetch(`${base}/api/v1/exports`, { method: 'POST', headers: { 'x-api-key': world.accountKey } });
      expect(started.status).toBe(202);
      const { jobId, statusUrl } = await started.json();
      expect(statusUrl).toBe(`/api/v1/exports/${jobId}`);
      await world.api.exportsIdle();
      const hits = hostHits.length;
      const job = await fetch(`${base}${statusUrl}`, { headers: { 'x-api-key': world.accountKey } });
      expect(job.status).toBe(200);
      expect(await job.json()).toMatchObject({ jobId, status: 'complete' });
      expect(hostHits.length).toBe(hits);
    });

    it('answers the API’s health check under the prefix without a key, and 401 for data without one', async () => {
      const health = await fetch(`${base}/api/v1/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: 'ok' });
      const anonymous = await replyOf(await fetch(`${base}/api/v1/people`));
      expect(anonymous.status).toBe(401);
      expect(errorCode(anonymous)).toBe('unauthorized');
    });

    it('drops a client’s own mount header: the API stays mounted at /api', async () => {
      for (const mount of ['/evil', '/api', '/']) {
        const health = await fetch(`${base}/api/v1/health`, { headers: { [MOUNT_HEADER]: mount } });
        expect(health.status, mount).toBe(200);
        await health.arrayBuffer();
        const people = await fetch(`${base}/api/v1/people?limit=3`, { headers: { 'x-api-key': world.accountKey, [MOUNT_HEADER]: mount } });
        expect(people.status, mount).toBe(200);
        expect((await people.json()).data, mount).toHaveLength(3);
        expect(api.seen.at(-1)!.mountedAt, mount).toBe('/api');
      }
    });

    it('passes request headers through to the API, X-API-Key in any case and custom headers alike', async () => {
      const res = await fetch(`${base}/api/v1/people/per_000`, {
        headers: { 'X-Api-KEY': world.scopedKeys['alpha.example']!, 'X-Trace-Id': 'trace-123', 'Accept-Language': 'de-DE', 'User-Agent': 'host-test/1.0' },
      });
      expect(res.status).toBe(200);
      expect((await res.json()).data).toMatchObject({ id: 'per_000', domain: 'alpha.example' });
      const seen = api.seen.at(-1)!;
      expect(seen.url).toBe('/v1/people/per_000');
      expect(seen.headers.get('x-api-key')).toBe(world.scopedKeys['alpha.example']);
      expect(seen.headers.get('x-trace-id')).toBe('trace-123');
      expect(seen.headers.get('accept-language')).toBe('de-DE');
      expect(seen.headers.get('user-agent')).toBe('host-test/1.0');
      // A scoped key through the mount is still scoped.
      const outside = await fetch(`${base}/api/v1/people/per_003`, { headers: { 'x-api-key': world.scopedKeys['alpha.example']! } });
      expect(outside.status).toBe(404);
    });

    it('passes the API’s response headers back, rate-limit headers and several Set-Cookie values included', async () => {
      const res = await fetch(`${base}/api/v1/stats`, { headers: { 'x-api-key': world.accountKey } });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('1000');
      expect(Number(res.headers.get('x-ratelimit-remaining'))).toBeLessThan(1000);

      // A variant of the API that sets headers of its own.
      const variant = toNodeListener({
        fetch: async () => {
          const headers = new Headers({ 'content-type': 'application/json', 'x-custom': 'yes', 'cache-control': 'no-store' });
          headers.append('set-cookie', 'a=1; Path=/');
          headers.append('set-cookie', 'b=2; Path=/; HttpOnly');
          return new Response('{"ok":true}', { status: 201, headers });
        },
      });
      const server = createServer(variant);
      const url = await listen(server);
      try {
        const got = await fetch(`${url}/anything`);
        expect(got.status).toBe(201);
        expect(got.headers.get('x-custom')).toBe('yes');
        expect(got.headers.get('cache-control')).toBe('no-store');
        expect(got.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; Path=/; HttpOnly']);
        expect(await got.json()).toEqual({ ok: true });
      } finally {
        await stop(server);
      }
    });
  });

  describe('as a listener on its own at the root', () => {
    let server: Server;
    let base: string;
    let api: ReturnType<typeof recording>;

    beforeAll(async () => {
      api = recording(world.api);
      server = createServer(toNodeListener(api));
      base = await listen(server);
    });
    afterAll(() => stop(server));

    it('answers an export’s start with the statusUrl /v1/exports/{jobId}, which leads to the job', async () => {
      const started = await fetch(`${base}/v1/exports`, { method: 'POST', headers: { 'x-api-key': world.accountKey } });
      expect(started.status).toBe(202);
      const { jobId, statusUrl } = await started.json();
      expect(statusUrl).toBe(`/v1/exports/${jobId}`);
      await world.api.exportsIdle();
      const job = await fetch(`${base}${statusUrl}`, { headers: { 'x-api-key': world.accountKey } });
      expect(job.status).toBe(200);
      expect(await job.json()).toMatchObject({ jobId, status: 'complete' });
    });

    it('drops a client’s own mount header: x-forwarded-prefix: /evil neither moves the routes nor reaches the API', async () => {
      const evil = { [MOUNT_HEADER]: '/evil' };
      const health = await fetch(`${base}/v1/health`, { headers: evil });
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: 'ok' });
      const people = await fetch(`${base}/v1/people?limit=4`, { headers: { 'x-api-key': world.accountKey, ...evil } });
      expect(people.status).toBe(200);
      expect((await people.json()).data).toHaveLength(4);
      expect(api.seen.at(-1)!.mountedAt).toBe('');
      expect(api.seen.at(-1)!.headers.has(MOUNT_HEADER)).toBe(false);
      // Nor does it open the API under the client's prefix.
      const moved = await replyOf(await fetch(`${base}/evil/v1/people`, { headers: { 'x-api-key': world.accountKey, ...evil } }));
      expect(moved.status).toBe(404);
      expect(errorCode(moved)).toBe('not_found');
    });
  });

  describe('as a listener on its own with a prefix', () => {
    let server: Server;
    let base: string;

    beforeAll(async () => {
      server = createServer(toNodeListener(world.api, { prefix: '/api/' }));
      base = await listen(server);
    });
    afterAll(() => stop(server));

    it('serves under the prefix, with the prefix removed before the API sees the path', async () => {
      const inside = await fetch(`${base}/api/v1/companies?limit=2`, { headers: { 'x-api-key': world.accountKey } });
      expect(inside.status).toBe(200);
      expect((await inside.json()).data).toHaveLength(2);
      const health = await fetch(`${base}/api/v1/health`);
      expect(health.status).toBe(200);
    });

    it('answers the API’s 404 envelope outside the prefix, for a look-alike prefix and for a bare API path alike', async () => {
      for (const path of ['/other', '/apiv1/people', '/v1/people', '/v1/stats']) {
        const res = await fetch(`${base}${path}`, { headers: { 'x-api-key': world.accountKey } });
        const reply = await replyOf(res);
        expect(reply.status, `${path} outside the /api prefix answered ${reply.status} ${JSON.stringify(reply.body).slice(0, 80)}`).toBe(404);
        expect(errorCode(reply), path).toBe('not_found');
      }
    });

    it('answers 500 internal_error with the envelope when the handler itself throws', async () => {
      const broken = createServer(
        toNodeListener({
          fetch: async () => {
            throw new Error('socket gone');
          },
        }),
      );
      const url = await listen(broken);
      try {
        const res = await fetch(`${url}/v1/people`);
        expect(res.status).toBe(500);
        expect(await res.json()).toEqual({ error: { code: 'internal_error', message: expect.any(String), status: 500 } });
      } finally {
        await stop(broken);
      }
    });
  });

  describe('as Connect/Express-style middleware under /vi', () => {
    let server: Server;
    let base: string;
    let api: ReturnType<typeof recording>;
    const reachedNext: string[] = [];
    const order: string[] = [];

    beforeAll(async () => {
      api = recording(world.api);
      const logger: Middleware = (req, _res, next) => {
        order.push(`log ${req.method} ${req.url}`);
        next();
      };
      /** Like express.json() / express.text() / express.raw(): reads the whole stream, then sets req.body. */
      const upstreamParser: Middleware = (req, _res, next) => {
        const as = req.headers['x-parse-as'];
        if (!as) return next();
        readAll(req).then((buf) => {
          req.body = as === 'json' ? JSON.parse(buf.toString('utf8')) : as === 'text' ? buf.toString('utf8') : buf;
          next();
        }, next);
      };
      const fallback: Middleware = (req, res) => {
        reachedNext.push(`${req.method} ${req.url}`);
        res.writeHead(200, { 'content-type': 'text/plain', 'x-served-by': 'next' });
        res.end(`next handled ${req.url}`);
      };
      server = createServer(connectApp([logger, upstreamParser, toMiddleware(api, { prefix: '/vi' }), fallback]));
      base = await listen(server);
    });
    afterAll(() => stop(server));

    it('hands requests outside the prefix to the next handler, look-alike prefixes included', async () => {
      for (const path of ['/', '/elsewhere', '/video', '/vip/v1/people', '/v1/people']) {
        const res = await fetch(`${base}${path}`, { headers: { 'x-api-key': world.accountKey } });
        expect(res.status, path).toBe(200);
        expect(res.headers.get('x-served-by'), path).toBe('next');
        expect(await res.text()).toBe(`next handled ${path}`);
      }
      expect(reachedNext).toEqual(['GET /', 'GET /elsewhere', 'GET /video', 'GET /vip/v1/people', 'GET /v1/people']);
    });

    it('issues export download links under the mount point, and they download through it without a key', async () => {
      const started = await fetch(`${base}/vi/v1/exports`, { method: 'POST', headers: { 'x-api-key': world.accountKey } });
      expect(started.status).toBe(202);
      const { jobId } = await started.json();
      await world.api.exportsIdle();
      const done = await (await fetch(`${base}/vi/v1/exports/${jobId}`, { headers: { 'x-api-key': world.accountKey } })).json();
      expect(done.status).toBe('complete');
      expect(done.downloadUrl.startsWith(`${base}/vi/v1/exports/${jobId}/download?`)).toBe(true);
      const file = await fetch(done.downloadUrl);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect((await file.text()).split('\r\n').filter(Boolean)).toHaveLength(done.rowCount + 1);
    });

    it('answers requests under the prefix itself without calling next', async () => {
      const before = reachedNext.length;
      const res = await fetch(`${base}/vi/v1/people?limit=3`, { headers: { 'x-api-key': world.scopedKeys['gamma.example']! } });
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body.pagination).toMatchObject({ limit: 3, count: 3 });
      expect(body.data.every((p: any) => p.domain === 'gamma.example')).toBe(true);
      const direct = await reference('/v1/people?limit=3', { headers: { 'x-api-key': world.scopedKeys['gamma.example']! } });
      expect(body).toEqual(await direct.json());
      const health = await fetch(`${base}/vi/v1/health`);
      expect(health.status).toBe(200);
      const missing = await replyOf(await fetch(`${base}/vi/v1/nope`, { headers: { 'x-api-key': world.accountKey } }));
      expect([missing.status, errorCode(missing)]).toEqual([404, 'not_found']);
      expect(reachedNext.length).toBe(before);
      expect(order.at(-1)).toBe('log GET /vi/v1/nope');
    });

    it('streams a JSON body of POST /vi/v1/exports to the API, which answers a scoped key 403 scope_not_supported', async () => {
      const payload = JSON.stringify({ timeframe: '30d', domains: ['beta.example'], search: 'x'.repeat(200_000) });
      const res = await fetch(`${base}/vi/v1/exports`, {
        method: 'POST',
        headers: { 'x-api-key': world.scopedKeys['beta.example']!, 'content-type': 'application/json' },
        body: payload,
      });
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ error: { code: 'scope_not_supported', message: expect.any(String), status: 403 } });
      const seen = api.seen.at(-1)!;
      expect([seen.method, seen.url, seen.headers.get('content-type')]).toEqual(['POST', '/v1/exports', 'application/json']);
      expect(seen.body).toBe(payload);

      // A body sent as a chunked stream arrives whole too.
      const chunks = ['{"timeframe":', '"7d",', '"isHotLead":true}'];
      const stream = new ReadableStream<Uint8Array>({
        start(c) {
          for (const chunk of chunks) c.enqueue(new TextEncoder().encode(chunk));
          c.close();
        },
      });
      const streamed = await fetch(`${base}/vi/v1/exports`, {
        method: 'POST',
        headers: { 'x-api-key': world.scopedKeys['alpha.example']!, 'content-type': 'application/json' },
        body: stream,
        duplex: 'half',
      } as RequestInit);
      const refused = await replyOf(streamed);
      expect(refused.status).toBe(403);
      expect(errorCode(refused)).toBe('scope_not_supported');
      expect(api.seen.at(-1)!.body).toBe(chunks.join(''));
    });

    it('passes on a body an upstream parser already consumed, whether parsed to an object, a string or a Buffer', async () => {
      const payload = { timeframe: '7d', regions: ['EMEA'], isHotLead: true };
      for (const as of ['json', 'text', 'raw']) {
        const res = await fetch(`${base}/vi/v1/exports`, {
          method: 'POST',
          headers: { 'x-api-key': world.scopedKeys['shop.alpha.example']!, 'content-type': 'application/json', 'x-parse-as': as },
          body: JSON.stringify(payload),
        });
        const reply = await replyOf(res);
        expect(reply.status, as).toBe(403);
        expect(errorCode(reply), as).toBe('scope_not_supported');
        const seen = api.seen.at(-1)!;
        expect(seen.url).toBe('/v1/exports');
        expect(JSON.parse(seen.body), as).toEqual(payload);
      }
      // An account key's export is not refused for scope, pre-parsed body or not.
      const account = await fetch(`${base}/vi/v1/exports`, {
        method: 'POST',
        headers: { 'x-api-key': world.accountKey, 'content-type': 'application/json', 'x-parse-as': 'json' },
        body: '{}',
      });
      expect(account.status).toBe(202);
      const started = await account.json();
      expect(started).toMatchObject({ jobId: expect.stringMatching(/^exp_/), status: 'processing', statusUrl: `/vi/v1/exports/${started.jobId}` });
      expect([api.seen.at(-1)!.method, api.seen.at(-1)!.url]).toEqual(['POST', '/v1/exports']);
      await world.api.exportsIdle();
      // Followed from the host's root, the statusUrl reaches the API, not the next handler.
      const before = reachedNext.length;
      const job = await fetch(`${base}${started.statusUrl}`, { headers: { 'x-api-key': world.accountKey } });
      expect(job.status).toBe(200);
      expect(await job.json()).toMatchObject({ jobId: started.jobId, status: 'complete' });
      expect(reachedNext.length).toBe(before);
    });

    it('hands the API a request whose Content-Length matches the body it carries after an upstream parser re-serialised it', async () => {
      // Sent with spaces: the parsed object re-serialises shorter than the original bytes.
      const sent = '{ "timeframe": "7d",\n  "isHotLead": true }';
      const res = await fetch(`${base}/vi/v1/exports`, {
        method: 'POST',
        headers: { 'x-api-key': world.scopedKeys['beta.example']!, 'content-type': 'application/json', 'x-parse-as': 'json' },
        body: sent,
      });
      expect(res.status).toBe(403);
      await res.arrayBuffer();
      const seen = api.seen.at(-1)!;
      expect(JSON.parse(seen.body)).toEqual(JSON.parse(sent));
      // A Request claiming a length its body does not have breaks any handler that forwards it with
      // fetch() ("Request body length does not match content-length header").
      const declared = seen.headers.get('content-length');
      if (declared !== null) expect(Number(declared), `content-length ${declared} for a ${Buffer.byteLength(seen.body)}-byte body`).toBe(Buffer.byteLength(seen.body));
    });
  });
});
