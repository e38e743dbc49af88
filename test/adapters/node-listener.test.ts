import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createApi, ManualClock, toNodeListener, type Api, type FetchHandler } from '../../adapters/node/index.ts';
import { rawRequest } from './raw-http.ts';

/**
 * How Node's listener writes answers and reports disconnects: the core's own API is asked for a
 * Reply through `reply` (no Fetch objects), the core's JSON answers are written from the text
 * they were built from, any other Response is read from its body, and the Request's signal
 * aborts only when the client leaves before the answer is complete.
 */

let server: Server | undefined;
let api: Api | undefined;

afterEach(async () => {
  if (server) {
    const s = server;
    await new Promise<void>((resolve) => {
      s.close(() => resolve());
      s.closeAllConnections();
    });
  }
  await api?.close();
  server = undefined;
  api = undefined;
});

/** Serves a handler through the listener; `closed` resolves after each Node response closes and the listener has seen it. */
async function serveHandler(handler: FetchHandler): Promise<{ base: string; closed: () => Promise<void> }> {
  const listener = toNodeListener(handler);
  let onClose: () => void = () => undefined;
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    // Registered before the listener's own 'close' handler: waiting a turn lets that one run too.
    res.on('close', () => setImmediate(onClose));
    listener(req, res);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, closed: () => new Promise<void>((resolve) => (onClose = resolve)) };
}

describe('the Node listener', () => {
  it('writes the core JSON answers with an exact byte length, non-ASCII text included', async () => {
    api = await createApi({ database: ':memory:', clock: new ManualClock('2026-11-21T08:00:00Z') });
    const account = await api.admin.createAccount({ name: 'Listener' });
    const { key } = await api.admin.issueAccountKey(account.id);
    const { base } = await serveHandler(api);
    const id = 'ünïcødé-😀';
    const res = await fetch(`${base}/v1/people/${encodeURIComponent(id)}`, { headers: { 'x-api-key': key } });
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(res.status).toBe(404);
    expect(Number(res.headers.get('content-length'))).toBe(bytes.byteLength);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = JSON.parse(bytes.toString('utf8')) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('not_found');
    expect(body.error.message).toContain(id);
  });

  it('reads the body of a JSON Response the core did not build', async () => {
    const text = JSON.stringify({ greeting: 'héllo' });
    const handler: FetchHandler = { fetch: async () => new Response(text, { headers: { 'content-type': 'application/json' } }) };
    const { base } = await serveHandler(handler);
    const res = await fetch(`${base}/anything`);
    expect(await res.text()).toBe(text);
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(text));
  });

  it('serves an Api through reply, and a copy that wraps fetch, or fetch alone, through that fetch', async () => {
    api = await createApi({ database: ':memory:', clock: new ManualClock('2026-11-21T08:00:00Z') });
    const core = api;
    const tagged: FetchHandler = { fetch: async (request) => {
      const response = await core.fetch(request);
      const headers = new Headers(response.headers);
      headers.set('x-wrapped', 'yes');
      return new Response(response.body, { status: response.status, headers });
    } };
    for (const [handler, wrapped] of [[api, null], [{ ...api, fetch: tagged.fetch }, 'yes'], [tagged, 'yes']] as const) {
      const { base } = await serveHandler(handler);
      const res = await fetch(`${base}/v1/people`);
      expect([res.status, res.headers.get('x-wrapped')]).toEqual([401, wrapped]);
      expect(await res.json()).toMatchObject({ error: { code: 'unauthorized' } });
    }
  });

  it('leaves the request signal alone once the answer is complete', async () => {
    const signals: AbortSignal[] = [];
    const handler: FetchHandler = {
      fetch: async (request) => {
        signals.push(request.signal);
        return new Response('done');
      },
    };
    const { base, closed } = await serveHandler(handler);
    const done = closed();
    expect(await (await fetch(`${base}/x`)).text()).toBe('done');
    await done;
    expect(signals).toHaveLength(1);
    expect(signals[0]!.aborted).toBe(false);
  });

  it('aborts the request signal when the client leaves in the middle of an answer', async () => {
    let signal: AbortSignal | undefined;
    const handler: FetchHandler = {
      fetch: async (request) => {
        signal = request.signal;
        // A body that never ends: only the client leaving stops it.
        const body = new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(new TextEncoder().encode('partial')) });
        return new Response(body, { headers: { 'content-type': 'text/plain' } });
      },
    };
    const { base, closed } = await serveHandler(handler);
    const done = closed();
    const client = new AbortController();
    const res = await fetch(`${base}/x`, { signal: client.signal });
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('partial');
    client.abort();
    await done;
    expect(signal!.aborted).toBe(true);
  });

  it("asks the core's API for a Reply and builds no Request, answering what api.fetch answers", async () => {
    api = await createApi({ database: ':memory:', clock: new ManualClock('2026-11-21T08:00:00Z') });
    const account = await api.admin.createAccount({ name: 'Listener' });
    const { key } = await api.admin.issueAccountKey(account.id);
    const port = Number(new URL((await serveHandler(api)).base).port);
    const Original = globalThis.Request;
    let built = 0;
    globalThis.Request = class extends Original {
      constructor(...args: ConstructorParameters<typeof Request>) {
        super(...args);
        built++;
      }
    };
    let overHttp;
    try {
      overHttp = await rawRequest(port, `GET /v1/people?limit=5 HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nConnection: close\r\n\r\n`);
    } finally {
      globalThis.Request = Original;
    }
    expect(built).toBe(0);
    const inProcess = await api.fetch(new Request('http://x/v1/people?limit=5', { headers: { 'x-api-key': key } }));
    expect(overHttp.status).toBe(200);
    expect(overHttp.body).toBe(await inProcess.text());
    for (const name of ['content-type', 'x-ratelimit-limit']) expect(overHttp.headers[name]).toBe(inProcess.headers.get(name));
    expect(overHttp.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
  });

  it('writes the whole body of a core answer that a wrapper passed on, as it is or as a new Response of its stream', async () => {
    api = await createApi({ database: ':memory:', clock: new ManualClock('2026-11-21T08:00:00Z') });
    const core = api;
    const expected = await (await core.fetch(new Request('http://api.test/v1/people'))).text();
    expect(JSON.parse(expected)).toMatchObject({ error: { code: 'unauthorized' } });
    // One server: a request saying `x-rebuild` gets the answer rebuilt around its body stream.
    const { base } = await serveHandler({
      fetch: async (request) => {
        const res = await core.fetch(request);
        return request.headers.has('x-rebuild') ? new Response(res.body, res) : res;
      },
    });
    expect(await (await fetch(`${base}/v1/people`)).text()).toBe(expected);
    expect(await (await fetch(`${base}/v1/people`, { headers: { 'x-rebuild': '1' } })).text()).toBe(expected);
  });

  it('gives the core every value of a repeated header, comma-joined as a Fetch Headers would', async () => {
    api = await createApi({ database: ':memory:', clock: new ManualClock('2026-11-21T08:00:00Z') });
    const account = await api.admin.createAccount({ name: 'Listener' });
    const { key } = await api.admin.issueAccountKey(account.id);
    const port = Number(new URL((await serveHandler(api)).base).port);
    const once = await rawRequest(port, `GET /v1/people HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nConnection: close\r\n\r\n`);
    const twice = await rawRequest(port, `GET /v1/people HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nx-api-key: ${key}\r\nConnection: close\r\n\r\n`);
    expect(once.status).toBe(200);
    // "key, key" is no key: refused, as it is when the same request reaches api.fetch.
    expect(twice.status).toBe(403);
    const viaFetch = await api.fetch(new Request('http://x/v1/people', { headers: [['x-api-key', key], ['x-api-key', key]] }));
    expect(viaFetch.status).toBe(403);
  });
});
