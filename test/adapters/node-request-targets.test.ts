import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, toMiddleware, type RunningServer } from '../../adapters/node/index.ts';
import { createWorld, type World } from '../support/world.ts';
import { rawRequest, type RawReply } from './raw-http.ts';

/**
 * Request targets in every form a client may send (RFC 9112 §3.2): the Node adapter routes an
 * absolute-form target by its path and query, whatever its authority, and answers any target
 * that names no path with 400 in the envelope, never 5xx. Written over raw TCP sockets, since
 * HTTP clients send origin-form only.
 */

let world: World;
let server: RunningServer;

beforeAll(async () => {
  world = await createWorld();
  server = await serve(world.api, { port: 0 });
});
afterAll(async () => {
  await server.close();
  await world.api.close();
});

/** A raw GET with Host, a key and Connection: close, so the server closes after answering. */
function get(port: number, target: string, headers: Record<string, string> = {}, method = 'GET'): Promise<RawReply> {
  const lines = Object.entries({ host: `127.0.0.1:${port}`, 'x-api-key': world.accountKey, connection: 'close', ...headers }).map(([n, v]) => `${n}: ${v}\r\n`);
  return rawRequest(port, `${method} ${target} HTTP/1.1\r\n${lines.join('')}\r\n`);
}

function expectBadTarget(reply: RawReply, target: string): void {
  expect(reply.status, reply.body).toBe(400);
  expect(reply.json).toEqual({ error: { code: 'bad_request', message: expect.stringContaining(JSON.stringify(target)), status: 400 } });
  expect(reply.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
  expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
}

describe('the Node adapter on its own', () => {
  it('routes an absolute-form target naming this server by its path', async () => {
    const reply = await get(server.port, `http://127.0.0.1:${server.port}/v1/health`);
    expect(reply.status, reply.body).toBe(200);
    expect(reply.json).toMatchObject({ status: 'ok' });
    expect(reply.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
  });

  it('routes an absolute-form target by its path and query whatever host it names, as the origin-form one', async () => {
    const absolute = await get(server.port, 'http://elsewhere.example:8080/v1/people?limit=3&hot_leads=true');
    const origin = await get(server.port, '/v1/people?limit=3&hot_leads=true');
    expect(absolute.status, absolute.body).toBe(200);
    expect(absolute.json.data).toHaveLength(3);
    expect(absolute.json).toEqual(origin.json);
    const upper = await get(server.port, 'HTTPS://ELSEWHERE.EXAMPLE/v1/health');
    expect([upper.status, upper.json?.status]).toEqual([200, 'ok']);
  });

  it('names the Host header’s origin in download links, not an absolute-form target’s authority', async () => {
    const started = await get(server.port, 'http://elsewhere.example/v1/exports', { host: 'api.example:9000', 'content-length': '0' }, 'POST');
    expect(started.status, started.body).toBe(202);
    await world.api.exportsIdle();
    const job = await get(server.port, `http://elsewhere.example${started.json.statusUrl}`, { host: 'api.example:9000' });
    expect(job.json.status).toBe('complete');
    expect(job.json.downloadUrl.startsWith(`http://api.example:9000/v1/exports/${started.json.jobId}/download?`)).toBe(true);
  });

  it.each(['*', 'http://[::1/v1/health', 'ftp://elsewhere.example/v1/health'])('answers the target %s with 400 bad_request quoting it', async (target) => {
    expectBadTarget(await get(server.port, target, {}, target === '*' ? 'OPTIONS' : 'GET'), target);
  });

  it('answers TRACE, which a Fetch Request cannot carry, as any wrong method: 405 with Allow, or 404', async () => {
    const known = await get(server.port, '/v1/health', {}, 'TRACE');
    expect([known.status, known.json?.error.code, known.headers.allow]).toEqual([405, 'method_not_allowed', 'GET']);
    expect(known.json.error.message).toContain('TRACE');
    const unknown = await get(server.port, '/v1/nope', {}, 'TRACE');
    expect([unknown.status, unknown.json?.error.code]).toEqual([404, 'not_found']);
  });
});

describe('the Node adapter as middleware', () => {
  let host: Server;
  let port: number;
  const reachedNext: string[] = [];

  beforeAll(async () => {
    const api = toMiddleware(world.api, { prefix: '/vi' });
    host = createServer((req, res) =>
      api(req, res, () => {
        reachedNext.push(req.url ?? '');
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '4', connection: 'close' }).end('host');
      }),
    );
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    port = (host.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => (host.close(() => resolve()), host.closeAllConnections())));

  it('serves an absolute-form target under its prefix and hands others, and targets that name no path, to next()', async () => {
    const inside = await get(port, 'http://elsewhere.example/vi/v1/health');
    expect([inside.status, inside.json?.status]).toEqual([200, 'ok']);
    for (const [method, target] of [['GET', 'http://elsewhere.example/video'], ['OPTIONS', '*'], ['GET', 'http://[::1/vi/v1/health']]) {
      const outside = await get(port, target!, {}, method);
      expect([outside.status, outside.body], target).toEqual([200, 'host']);
    }
    expect(reachedNext).toEqual(['http://elsewhere.example/video', '*', 'http://[::1/vi/v1/health']);
  });
});

describe('the Node adapter mounted in Express', () => {
  let host: Server;
  let port: number;

  beforeAll(async () => {
    const app = express();
    app.use('/vi', toMiddleware(world.api));
    app.use((_req, res) => void res.status(404).send('express: nothing here'));
    host = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => host.once('listening', resolve));
    port = (host.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => (host.close(() => resolve()), host.closeAllConnections())));

  it('routes an absolute-form target through the Express mount by its path', async () => {
    const reply = await get(port, 'http://elsewhere.example/vi/v1/people?limit=2');
    expect(reply.status, reply.body).toBe(200);
    expect(reply.json.data).toHaveLength(2);
  });
});
