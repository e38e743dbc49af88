import { describe, expect, it } from 'vitest';
import { createApi, ManualClock } from '../../adapters/node/index.ts';
import { TOKEN } from '../admin-http/support.ts';

const APP = 'http://localhost:5173';

describe('fault injection and admin routes from a browser page (CORS on)', () => {
  it('lets a preflight send Prefer, and the page read Preference-Applied', async () => {
    const api = await createApi({ database: ':memory:', clock: new ManualClock(), cors: { origins: [APP] }, faults: true, onError: () => undefined });
    const pre = await api.fetch(new Request('http://api.test/v1/health', { method: 'OPTIONS', headers: { origin: APP, 'access-control-request-method': 'GET', 'access-control-request-headers': 'prefer' } }));
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-headers')).toMatch(/\bPrefer\b/);
    const res = await api.fetch(new Request('http://api.test/v1/health', { headers: { origin: APP, prefer: 'fault=internal_error' } }));
    expect(res.status).toBe(500);
    expect(res.headers.get('access-control-expose-headers')).toMatch(/\bPreference-Applied\b/);
    await api.close();
  });

  it('allows the admin routes\' methods in a preflight when admin over HTTP is on', async () => {
    const api = await createApi({ database: ':memory:', clock: new ManualClock(), cors: { origins: [APP] }, admin: { token: TOKEN }, onError: () => undefined });
    const pre = await api.fetch(new Request('http://api.test/_admin/webhooks/whe_1', { method: 'OPTIONS', headers: { origin: APP, 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'authorization, content-type' } }));
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-methods')).toMatch(/PATCH/);
    expect(pre.headers.get('access-control-allow-methods')).toMatch(/DELETE/);
    await api.close();
  });
});
