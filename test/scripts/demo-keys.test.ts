import { describe, expect, it } from 'vitest';
import { createApi } from '../../adapters/node/index.ts';
import { DEMO_ACCOUNT_ID, deriveDemoKey, ensureDemoKeys } from '../../scripts/demo-keys.ts';

async function demoApi() {
  const api = await createApi({ database: ':memory:' });
  await api.admin.createAccount({ id: DEMO_ACCOUNT_ID, name: 'Demo' });
  await api.admin.registerSite(DEMO_ACCOUNT_ID, { domain: 'one.example', clientRef: 'one' });
  await api.admin.registerSite(DEMO_ACCOUNT_ID, { domain: 'two.example', clientRef: null });
  return api;
}

const works = async (api: Awaited<ReturnType<typeof demoApi>>, key: string) =>
  (await api.fetch(new Request('http://x/v1/stats', { headers: { 'x-api-key': key } }))).status === 200;

describe('demo keys', () => {
  it('are derived from the seed, so the same seed names the same keys', async () => {
    const a = await ensureDemoKeys(await demoApi(), 42);
    const b = await ensureDemoKeys(await demoApi(), 42);
    expect(a).toEqual(b);
    expect(a.accountKey).toBe(deriveDemoKey(42, 'account'));
    expect((await ensureDemoKeys(await demoApi(), 43)).accountKey).not.toBe(a.accountKey);
  });

  it('are issued once and found again on the next start', async () => {
    const api = await demoApi();
    const first = await ensureDemoKeys(api, 42);
    const second = await ensureDemoKeys(api, 42);
    expect(second).toEqual(first);
    expect((await api.admin.listKeys(DEMO_ACCOUNT_ID)).length).toBe(3);
  });

  it('are replaced by working keys when they were revoked or rotated away', async () => {
    const api = await demoApi();
    const first = await ensureDemoKeys(api, 42);
    const keys = await api.admin.listKeys(DEMO_ACCOUNT_ID);
    await api.admin.revokeKey(keys.find((k) => k.domain === null)!.keyId);
    await api.admin.rotateKey(keys.find((k) => k.domain === 'one.example')!.keyId);
    const next = await ensureDemoKeys(api, 42);
    expect(next.accountKey).not.toBe(first.accountKey);
    expect(await works(api, next.accountKey)).toBe(true);
    const one = next.scopedKeys.find((k) => k.domain === 'one.example')!;
    expect(one.key).not.toBe(first.scopedKeys.find((k) => k.domain === 'one.example')!.key);
    expect(await works(api, one.key)).toBe(true);
    expect(next.scopedKeys.find((k) => k.domain === 'two.example')).toEqual(first.scopedKeys.find((k) => k.domain === 'two.example'));
  });
});
