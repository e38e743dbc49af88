import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, serve, type Api } from '../../adapters/node/index.ts';
import type { CorsOptions } from '../../core/http/cors.ts';

/**
 * In-process and over real HTTP, as the behaviour suites run, but without their OpenAPI response
 * check: the document describes the API itself, and a preflight's 204 is the transport's answer.
 */
const TARGETS = [
  {
    name: 'in-process',
    start: async (api: Api) => ({ call: (path: string, init?: RequestInit) => api.fetch(new Request(`http://api.test${path}`, init)), close: async () => undefined }),
  },
  {
    name: 'node http',
    start: async (api: Api) => {
      const server = await serve(api, { port: 0 });
      return { call: (path: string, init?: RequestInit) => fetch(`${server.url}${path}`, init), close: () => server.close() };
    },
  },
];

const APP = 'https://app.example';
const OTHER = 'https://evil.example';

/** What a browser sends before a cross-origin GET carrying X-API-Key. */
const preflight = (origin: string, method = 'GET', headers = 'x-api-key') => ({
  method: 'OPTIONS',
  headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
});

const corsHeaders = (res: Response) => [...res.headers.keys()].filter((name) => name.startsWith('access-control-'));

/** Serves a fresh API with `cors` through `target`; resolves with a caller, the account key and a stop function. */
async function serveWith(target: (typeof TARGETS)[number], cors: CorsOptions | undefined, rateLimit = 1000) {
  const api: Api = await createApi({ database: ':memory:', cors, rateLimits: { accountPerHour: rateLimit } });
  await api.admin.createAccount({ id: 'acc', name: 'A' });
  const { key } = await api.admin.issueAccountKey('acc');
  const started = await target.start(api);
  return { call: started.call, key, close: async () => (await started.close(), await api.close()) };
}

describe.each(TARGETS)('CORS ($name)', (target) => {
  describe('with an origin list', () => {
    let server: Awaited<ReturnType<typeof serveWith>>;
    beforeAll(async () => {
      server = await serveWith(target, { origins: [APP, 'http://localhost:3000'] }, 2);
    });
    afterAll(() => server.close());

    it('answers a preflight from an allowed origin with 204 and every header a browser checks, without a key', async () => {
      const res = await server.call('/v1/people?limit=1', preflight(APP, 'GET', 'x-api-key, content-type'));
      expect(res.status).toBe(204);
      expect(await res.text()).toBe('');
      expect(res.headers.get('access-control-allow-origin')).toBe(APP);
      expect(res.headers.get('vary')).toMatch(/\bOrigin\b/);
      expect(res.headers.get('access-control-allow-methods')!.split(/,\s*/)).toEqual(expect.arrayContaining(['GET', 'POST']));
      const allowed = res.headers.get('access-control-allow-headers')!.toLowerCase().split(/,\s*/);
      expect(allowed).toEqual(expect.arrayContaining(['x-api-key', 'content-type']));
      expect(Number(res.headers.get('access-control-max-age'))).toBeGreaterThan(0);
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    });

    it('answers the preflight of an export POST, and of any allowed origin of the list', async () => {
      const res = await server.call('/v1/exports', preflight('http://localhost:3000', 'POST', 'content-type,x-api-key'));
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    });

    it('does not count preflights against the hourly limit', async () => {
      for (let i = 0; i < 5; i++) expect((await server.call('/v1/stats', preflight(APP))).status).toBe(204);
      const res = await server.call('/v1/stats', { headers: { origin: APP, 'x-api-key': server.key } });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-remaining')).toBe('1');
    });

    it('lets an allowed origin read the answer and its request id, limit and retry headers', async () => {
      const res = await server.call('/v1/people?limit=1', { headers: { origin: APP, 'x-api-key': server.key } });
      expect(res.headers.get('access-control-allow-origin')).toBe(APP);
      expect(res.headers.get('vary')).toMatch(/\bOrigin\b/);
      const exposed = res.headers.get('access-control-expose-headers')!.toLowerCase().split(/,\s*/);
      expect(exposed).toEqual(expect.arrayContaining(['x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'retry-after']));
    });

    it('puts the CORS headers on errors too, so a browser client can read the envelope of a 429', async () => {
      const res = await server.call('/v1/stats', { headers: { origin: APP, 'x-api-key': server.key } });
      expect(res.status).toBe(429);
      expect(res.headers.get('access-control-allow-origin')).toBe(APP);
      expect((await res.json()).error.code).toBe('rate_limit_exceeded');
    });

    it('gives a disallowed origin no CORS headers: its preflight is a 405 and its answers carry none', async () => {
      const pre = await server.call('/v1/people', preflight(OTHER));
      expect(pre.status).toBe(405);
      expect(corsHeaders(pre)).toEqual([]);
      const res = await server.call('/v1/health', { headers: { origin: OTHER } });
      expect(res.status).toBe(200);
      expect(corsHeaders(res)).toEqual([]);
      expect(res.headers.get('vary')).toMatch(/\bOrigin\b/);
    });

    it('treats an OPTIONS request that is not a preflight as before (405)', async () => {
      const res = await server.call('/v1/people', { method: 'OPTIONS', headers: { origin: APP } });
      expect(res.status).toBe(405);
      expect((await res.json()).error.code).toBe('method_not_allowed');
    });
  });

  describe('with a wildcard-subdomain origin', () => {
    let server: Awaited<ReturnType<typeof serveWith>>;
    beforeAll(async () => {
      server = await serveWith(target, { origins: ['https://*.Example.com'] });
    });
    afterAll(() => server.close());

    it.each(['https://app.example.com', 'https://a.b.example.com', 'https://xn--bcher-kva.example.com'])('lets %s, a subdomain over https, preflight and read the answer', async (origin) => {
      const pre = await server.call('/v1/people', preflight(origin));
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe(origin);
      expect(pre.headers.get('vary')).toMatch(/\bOrigin\b/);
      const res = await server.call('/v1/people?limit=1', { headers: { origin, 'x-api-key': server.key } });
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe(origin);
    });

    it.each(['https://example.com', 'https://evil-example.com', 'https://app.evil-example.com', 'http://app.example.com', 'https://app.example.com:8443', 'https://app.example.com.evil.test', 'https://.example.com', 'null'])(
      'gives %s, which is not one, no CORS headers',
      async (origin) => {
        const pre = await server.call('/v1/people', preflight(origin));
        expect(pre.status).toBe(405);
        expect(corsHeaders(pre)).toEqual([]);
        const res = await server.call('/v1/health', { headers: { origin } });
        expect(corsHeaders(res)).toEqual([]);
        expect(res.headers.get('vary')).toMatch(/\bOrigin\b/);
      },
    );
  });

  describe("with '*'", () => {
    let server: Awaited<ReturnType<typeof serveWith>>;
    beforeAll(async () => {
      server = await serveWith(target, { origins: '*' });
    });
    afterAll(() => server.close());

    it('answers any origin with a wildcard', async () => {
      const pre = await server.call('/v1/people', preflight(OTHER));
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe('*');
      const res = await server.call('/v1/health', { headers: { origin: OTHER } });
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
    });

    it('adds nothing to a request without an Origin (not from a browser page)', async () => {
      expect(corsHeaders(await server.call('/v1/health'))).toEqual([]);
    });
  });

  describe('off by default', () => {
    let server: Awaited<ReturnType<typeof serveWith>>;
    beforeAll(async () => {
      server = await serveWith(target, undefined);
    });
    afterAll(() => server.close());

    it('answers a preflight 405 with Allow and no CORS headers, as before', async () => {
      const res = await server.call('/v1/people', preflight(APP));
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET');
      expect(corsHeaders(res)).toEqual([]);
      const plain = await server.call('/v1/health', { headers: { origin: APP } });
      expect(corsHeaders(plain)).toEqual([]);
      expect(plain.headers.get('vary')).toBeNull();
    });
  });
});

describe('CORS options', () => {
  it.each(['app.example', 'https://app.example/path', 'ftp://app.example', '*.example.com'])('refuse %s, which no browser sends as an origin, leaving no work running on the closed database', async (origin) => {
    const errors: unknown[] = [];
    await expect(createApi({ database: ':memory:', cors: { origins: [origin] }, onError: (e) => errors.push(e) })).rejects.toThrow(/CORS origin .* is not an origin/);
    // Background work started before the refusal would fail on the database the refusal closed.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(errors).toEqual([]);
  });

  it.each(['https://a*.example.com', 'https://*example.com', 'https://app.*.example.com', 'https://*.*.example.com', 'https://*.com', 'https://*', 'https://example.*'])(
    'refuse %s: a * may only be the whole leftmost label over a domain of two labels or more',
    async (origin) => {
      await expect(createApi({ database: ':memory:', cors: { origins: [origin] } })).rejects.toThrow(/CORS origin .* is not an origin/);
    },
  );

  it("keep a pattern's port: https://*.example.com:8443 allows that port only", async () => {
    const api = await createApi({ database: ':memory:', cors: { origins: ['https://*.example.com:8443'] } });
    const allowed = async (origin: string) =>
      (await api.fetch(new Request('http://api.test/v1/health', { headers: { origin } }))).headers.get('access-control-allow-origin');
    expect(await allowed('https://app.example.com:8443')).toBe('https://app.example.com:8443');
    expect(await allowed('https://app.example.com')).toBeNull();
    await api.close();
  });

  it('match origins as browsers send them (lower case, default port dropped)', async () => {
    const api = await createApi({ database: ':memory:', cors: { origins: ['https://App.Example:443'] } });
    const res = await api.fetch(new Request('http://api.test/v1/health', { headers: { origin: 'https://app.example' } }));
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example');
  });
});
