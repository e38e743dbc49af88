import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, type Api } from '../../adapters/node/index.ts';
import { ASSETS_MODULE, buildConsoleModule } from '../../scripts/build-console.ts';

const TOKEN = 'console-test-admin-token';

describe('the console, served by the core', () => {
  let api: Api;
  let closed: Api;
  beforeAll(async () => {
    api = await createApi({ database: ':memory:', admin: { token: TOKEN } });
    closed = await createApi({ database: ':memory:' });
  });
  afterAll(async () => {
    await api.close();
    await closed.close();
  });
  const get = (target: Api, path: string, init: RequestInit = {}) => target.fetch(new Request(`http://sandbox${path}`, init));

  it('answers its page as HTML revalidated on every load, naming content-hashed assets', async () => {
    const page = await get(api, '/_console/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    expect(page.headers.get('x-request-id')).toMatch(/^req_/);
    expect(page.headers.has('x-ratelimit-limit')).toBe(false);
    const html = await page.text();
    const script = /src="\.\/(app-[0-9a-f]{16}\.js)"/.exec(html)?.[1];
    const styles = /href="\.\/(style-[0-9a-f]{16}\.css)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    expect(styles).toBeDefined();
    const js = await get(api, `/_console/${script}`);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await js.text()).length).toBeGreaterThan(1000);
    const css = await get(api, `/_console/${styles}`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  it('answers the API reference page with swagger-ui\'s files, embedded like the rest', async () => {
    const page = await get(api, '/_console/reference.html');
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const html = await page.text();
    for (const name of [/swagger-ui-bundle-[0-9a-f]{16}\.js/, /swagger-ui-[0-9a-f]{16}\.css/, /reference-[0-9a-f]{16}\.js/]) {
      const file = name.exec(html)?.[0];
      expect(file, String(name)).toBeDefined();
      expect((await get(api, `/_console/${file}`)).status).toBe(200);
    }
  });

  it('answers a page the browser already holds with 304 and no body', async () => {
    const page = await get(api, '/_console/');
    const again = await get(api, '/_console/', { headers: { 'if-none-match': page.headers.get('etag')! } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect((await get(api, '/_console/', { headers: { 'if-none-match': '"stale"' } })).status).toBe(200);
  });

  it('sends the bare path to the directory, under the mount point too', async () => {
    const bare = await get(api, '/_console');
    expect(bare.status).toBe(308);
    expect(bare.headers.get('location')).toBe('/_console/');
    const mounted = await get(api, '/api/_console', { headers: { 'x-forwarded-prefix': '/api' } });
    expect(mounted.headers.get('location')).toBe('/api/_console/');
    expect((await get(api, '/api/_console/', { headers: { 'x-forwarded-prefix': '/api' } })).status).toBe(200);
  });

  it('answers a missing file with 404 and a method other than GET with 405, as error objects', async () => {
    const missing = await get(api, '/_console/nothing.js');
    expect(missing.status).toBe(404);
    expect((await missing.json()).error).toMatchObject({ code: 'not_found', status: 404 });
    const posted = await get(api, '/_console/', { method: 'POST' });
    expect(posted.status).toBe(405);
    expect(posted.headers.get('allow')).toBe('GET, HEAD');
  });

  it('is not there when admin over HTTP is off', async () => {
    const page = await get(closed, '/_console/');
    expect(page.status).toBe(404);
    expect((await page.json()).error.message).toMatch(/No endpoint/);
  });

  it('serves assets that are up to date with console/src (npm run build:console)', async () => {
    expect(await buildConsoleModule()).toBe(readFileSync(ASSETS_MODULE, 'utf8'));
  });
});
