import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { atMountPoint, toNodeListener } from '../../adapters/node/index.ts';
import { openApiDocument } from '../../core/openapi/document.ts';
import { TARGETS, serveWorld, type Client } from '../support/targets.ts';
import { createWorld, type World } from '../support/world.ts';

describe.each(TARGETS)('the OpenAPI document served by the API ($name)', (target) => {
  let world: World;
  let client: Client;
  serveWorld(target, { rateLimits: { accountPerHour: 3 } }, (w, c) => ((world = w), (client = c)));

  it('answers GET /v1/openapi.json without a key, as JSON with its own X-Request-Id', async () => {
    const reply = await client.get('/v1/openapi.json');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(reply.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
    expect(reply.body.openapi).toBe('3.1.0');
    expect(reply.body).toEqual(openApiDocument());
  });

  it('names the root as its server when the API is not mounted, even if a client claims a prefix', async () => {
    expect((await client.get('/v1/openapi.json')).body.servers).toEqual([{ url: '/', description: 'This server.' }]);
    // Adapters replace a client's X-Forwarded-Prefix; in-process, the core reads it as a mount header, so only HTTP is asked.
    if (target.name === 'node http') {
      expect((await client.get('/v1/openapi.json', undefined, { 'x-forwarded-prefix': '/evil' })).body.servers[0].url).toBe('/');
    }
  });

  it('does not count against the hourly limit, like the health check', async () => {
    for (let i = 0; i < 5; i++) {
      const reply = await client.get('/v1/openapi.json');
      expect(reply.status).toBe(200);
      expect(reply.headers.get('x-ratelimit-remaining')).toBe('3');
    }
    const counted = await client.get('/v1/stats', world.accountKey);
    expect(counted.headers.get('x-ratelimit-remaining')).toBe('2');
  });
});

describe('the OpenAPI document under a mount prefix', () => {
  let world: World;
  let host: Server;
  let base: string;

  beforeAll(async () => {
    world = await createWorld();
    const api = toNodeListener(world.api, { prefix: '/api' });
    host = createServer((req, res) => (req.url?.startsWith('/api/') ? api(req, res) : res.writeHead(404).end()));
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => host.close(() => resolve())));

  it('names the prefix as its server through the Node listener, with the paths unchanged', async () => {
    const res = await fetch(`${base}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
    const body = await res.json();
    expect(body.servers).toEqual([{ url: '/api', description: 'This server, under /api.' }]);
    expect(Object.keys(body.paths)).toEqual(Object.keys(openApiDocument().paths as object));
    // A client resolving a path against that server reaches the API.
    const health = await fetch(new URL(`${body.servers[0].url}/v1/health`, res.url));
    expect(health.status).toBe(200);
  });

  it('names the prefix as its server for any server that hands requests over with atMountPoint', async () => {
    const res = await world.api.fetch(atMountPoint(new Request('http://host.test/vi/x/v1/openapi.json'), '/vi/x'));
    expect((await res.json()).servers[0].url).toBe('/vi/x');
  });
});
