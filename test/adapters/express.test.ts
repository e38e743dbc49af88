import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toMiddleware } from '../../adapters/node/index.ts';
import { errorCode, replyOf } from '../support/client.ts';
import { createWorld, type World } from '../support/world.ts';

/** docs/embedding.md's Express example, for real: the API mounted with app.use beside the host's own routes and body parser. */
describe('the API as Express middleware', () => {
  let world: World;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    world = await createWorld();
    const app = express();
    app.use(express.json());
    app.use('/vi', toMiddleware(world.api));
    app.get('/', (_req, res) => void res.send('the host app'));
    app.post('/echo', (req, res) => void res.json({ host: true, got: req.body }));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('leaves the host’s own routes and body parsing working', async () => {
    expect(await (await fetch(`${base}/`)).text()).toBe('the host app');
    const echo = await fetch(`${base}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(await echo.json()).toEqual({ host: true, got: { a: 1 } });
  });

  it('serves the API under the mount path with its headers and envelope', async () => {
    const ok = await fetch(`${base}/vi/v1/people?limit=2`, { headers: { 'x-api-key': world.accountKey } });
    expect(ok.status).toBe(200);
    expect((await ok.json()).data).toHaveLength(2);
    expect(ok.headers.get('x-request-id')).toMatch(/^req_/);
    const missing = await fetch(`${base}/vi/v1/nope`, { headers: { 'x-api-key': world.accountKey } });
    expect(await missing.json()).toEqual({ error: { code: 'not_found', message: expect.stringContaining('/v1/nope'), status: 404 } });
  });

  it('receives a JSON body that express.json() already parsed, and rejects a bad one in its own envelope', async () => {
    const started = await fetch(`${base}/vi/v1/exports`, {
      method: 'POST',
      headers: { 'x-api-key': world.accountKey, 'content-type': 'application/json' },
      body: JSON.stringify({ regions: ['EMEA'], filename: 'from-express' }),
    });
    expect(started.status).toBe(202);
    const { jobId, statusUrl } = await started.json();
    // The statusUrl carries Express's mount path: followed from the host's root it reaches the job.
    expect(statusUrl).toBe(`/vi/v1/exports/${jobId}`);
    await world.api.exportsIdle();
    const done = await (await fetch(`${base}${statusUrl}`, { headers: { 'x-api-key': world.accountKey } })).json();
    expect(done).toMatchObject({ jobId, status: 'complete' });
    expect(done.downloadUrl.startsWith(`${base}/vi/v1/exports/`)).toBe(true);
    const file = await fetch(done.downloadUrl);
    expect(file.headers.get('content-disposition')).toBe('attachment; filename="from-express.csv"');
    const rejected = await fetch(`${base}/vi/v1/exports`, {
      method: 'POST',
      headers: { 'x-api-key': world.accountKey, 'content-type': 'application/json' },
      body: JSON.stringify({ colour: 'red' }),
    });
    const reply = await replyOf(rejected);
    expect(reply.status).toBe(400);
    expect(errorCode(reply)).toBe('bad_request');
    expect(reply.body.error.message).toContain('colour');
  });
});
