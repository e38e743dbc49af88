import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerClientErrors, serve, toNodeListener, type RunningServer } from '../../adapters/node/index.ts';
import { createWorld, type World } from '../support/world.ts';
import { parseReplies, rawRequest, sendRaw, type RawReply } from './raw-http.ts';

/**
 * What Node's HTTP layer refuses before a request reaches the API: every such answer carries the
 * error envelope, a JSON content type, an exact Content-Length and an X-Request-Id in the core's
 * format, and closes the connection. Requests are written byte for byte over raw TCP sockets,
 * since no HTTP client sends them.
 */

let world: World;
let server: RunningServer;
let port: number;

beforeAll(async () => {
  world = await createWorld();
  server = await serve(world.api, { port: 0 });
  port = server.port;
});
afterAll(async () => {
  await server.close();
  await world.api.close();
});

/** Asserts an answer is the envelope with this status and code, with the headers every answer carries. */
function expectEnvelope(reply: RawReply, status: number, code: string): void {
  expect(reply.status, reply.body).toBe(status);
  expect(reply.json).toEqual({ error: { code, message: expect.any(String), status } });
  expect(reply.json.error.message.length).toBeGreaterThan(10);
  expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(reply.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
  expect(Number(reply.headers['content-length'])).toBe(Buffer.byteLength(reply.body));
}

describe('answers the Node HTTP layer makes itself', () => {
  it('answers headers over 16 KB with 431 headers_too_large in the envelope', async () => {
    const reply = await rawRequest(port, `GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(17_000)}\r\n\r\n`);
    expectEnvelope(reply, 431, 'headers_too_large');
    expect(reply.headers.connection).toBe('close');
    expect(reply.json.error.message).toContain('16384 bytes');
  });

  it('answers a request line too long for the header limit with 431 too', async () => {
    expectEnvelope(await rawRequest(port, `GET /v1/people/${'p'.repeat(20_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`), 431, 'headers_too_large');
  });

  it.each([
    ['a malformed request line', 'GET / / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 'request line'],
    ['an unknown HTTP version', 'GET /v1/health HTTP/2.5\r\nHost: 127.0.0.1\r\n\r\n', 'request line'],
    ['a method that is no token', 'G@T /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 'method'],
    ['a control character in a header value', 'GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Note: a\x01b\r\n\r\n', 'header'],
    ['a Content-Length that is no number', 'POST /v1/exports HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc\r\n\r\n', 'Content-Length'],
    ['Content-Length beside Transfer-Encoding', 'POST /v1/exports HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n', 'Content-Length'],
    ['a Transfer-Encoding not ending in chunked', 'POST /v1/exports HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: gzip\r\n\r\nxyz', 'Transfer-Encoding'],
    ['a malformed chunk size', 'POST /v1/exports HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', 'chunked'],
    ['a target with characters no URL may hold', 'GET /v1/\x7fhealth HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 'target'],
  ])('answers %s with 400 bad_request in the envelope, saying what is wrong', async (_case, bytes, named) => {
    const reply = await rawRequest(port, bytes);
    expectEnvelope(reply, 400, 'bad_request');
    expect(reply.headers.connection).toBe('close');
    expect(reply.json.error.message).toContain(named);
  });

  it('answers an unknown Expect with 417 expectation_failed in the envelope, quoting it', async () => {
    const reply = await rawRequest(port, 'GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 200-ok\r\n\r\n');
    expectEnvelope(reply, 417, 'expectation_failed');
    expect(reply.json.error.message).toContain('"200-ok"');
  });

  it('still honours Expect: 100-continue', async () => {
    const raw = await sendRaw(port, 'GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n');
    expect(raw.startsWith('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n')).toBe(true);
  });

  it('answers an HTTP/1.1 request without Host with 400 bad_request naming the header, and serves HTTP/1.0 without one', async () => {
    const reply = await rawRequest(port, 'GET /v1/health HTTP/1.1\r\n\r\n');
    expectEnvelope(reply, 400, 'bad_request');
    expect(reply.json.error.message).toContain('Host');
    const old = await rawRequest(port, 'GET /v1/health HTTP/1.0\r\n\r\n');
    expect([old.status, old.json?.status]).toEqual([200, 'ok']);
  });

  it('keeps serving after a client resets its connection in the middle of a request', async () => {
    await new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write('GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half: ');
        setImmediate(() => (socket.resetAndDestroy(), resolve()));
      });
    });
    const reply = await rawRequest(port, 'GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    expect([reply.status, reply.json.status]).toEqual([200, 'ok']);
  });
});

describe('a connection that carries a refused request', () => {
  const health = 'GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';

  it('answers the requests pipelined before a malformed one, in order, then refuses it and closes', async () => {
    const keyed = `GET /v1/people?limit=2 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${world.accountKey}\r\n\r\n`;
    const replies = parseReplies(await sendRaw(port, `${health}${keyed}${health}BROKEN LINE\r\n\r\n`));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 400]);
    expect(replies[1]!.json.data).toHaveLength(2);
    expectEnvelope(replies[3]!, 400, 'bad_request');
    expect(replies[3]!.headers.connection).toBe('close');
  });

  it('writes nothing after an answer that closed the connection, when a malformed request follows it', async () => {
    const replies = parseReplies(await sendRaw(port, `${health}GET /v1/health HTTP/1.1\r\n\r\nBROKEN LINE\r\n\r\n`));
    expect(replies.map((r) => r.status)).toEqual([200, 400]);
    expect(replies[1]!.json.error.message).toContain('Host');
  });

  it('closes the connection after refusing a body declared over the limit, while the client still trickles it', async () => {
    const head = `POST /v1/exports HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${world.accountKey}\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n{"timeframe":`;
    const raw = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('error', () => undefined);
      socket.write(head);
      // A byte at a time, as a slow upload: the server must not wait for the rest of it.
      const trickle = setInterval(() => socket.write(' '), 20);
      socket.on('close', () => (clearInterval(trickle), resolve(Buffer.concat(chunks).toString('latin1'))));
    });
    const [reply, ...more] = parseReplies(raw);
    expect(more).toEqual([]);
    expectEnvelope(reply!, 400, 'bad_request');
    expect(reply!.json.error.message).toContain('65536 bytes');
    expect(reply!.headers.connection).toBe('close');
  });
});

describe('answerClientErrors on a server of the embedder’s own', () => {
  let host: Server;
  let hostPort: number;

  beforeAll(async () => {
    // Timeouts short enough to reach: headers must be complete within 200 ms, checked every 50 ms.
    host = answerClientErrors(createServer({ headersTimeout: 200, requestTimeout: 400, connectionsCheckingInterval: 50 }, toNodeListener(world.api)));
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    hostPort = (host.address() as AddressInfo).port;
  });
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        host.close(() => resolve());
        host.closeAllConnections();
      }),
  );

  it('answers headers that do not arrive in time with 408 request_timeout in the envelope', async () => {
    const reply = await rawRequest(hostPort, 'GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ', { keepWriting: true });
    expectEnvelope(reply, 408, 'request_timeout');
    expect(reply.headers.connection).toBe('close');
    expect(reply.json.error.message).toContain('0.2 s');
  });

  it('answers a body that does not arrive in time with 408 too, while the API waits for it', async () => {
    const head = `POST /v1/exports HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${world.accountKey}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"timeframe":`;
    const reply = await rawRequest(hostPort, head, { keepWriting: true });
    expectEnvelope(reply, 408, 'request_timeout');
    await world.api.exportsIdle();
  });

  it('answers oversized headers with 431 there too', async () => {
    expectEnvelope(await rawRequest(hostPort, `GET / HTTP/1.1\r\nHost: h\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`), 431, 'headers_too_large');
  });
});
