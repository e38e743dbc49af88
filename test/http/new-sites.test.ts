import { describe, expect, it } from 'vitest';
import { MATRIX, serveWorld, type Client } from '../support/targets.ts';
import { NOW, type World } from '../support/world.ts';

/**
 * A key's lookup brings its account's sites along with it (one round trip for both); these pin
 * that what it brings is the account's sites as they are at that request, not when the key was
 * issued or first used.
 */
describe.each(MATRIX)('sites registered after a key ($name)', (target) => {
  let world: World;
  let client: Client;
  serveWorld(target, {}, (w, c) => ((world = w), (client = c)), { per: 'test' });

  const iso = (ms: number) => new Date(ms).toISOString();
  const visitOn = (domain: string) => [{ domain, visitCount: 3, firstSeen: iso(NOW - 3_600_000), lastSeen: iso(NOW + 60_000) }];

  it('are selected by the domain and client_ref filters of a key already in use, from the next request on', async () => {
    expect((await client.get('/v1/people?domain=delta.example', world.accountKey)).body.data).toEqual([]);
    expect((await client.get('/v1/people?client_ref=delta', world.accountKey)).body.data).toEqual([]);
    await world.api.admin.registerSite('acc_a', { domain: 'delta.example', clientRef: 'delta' });
    await world.api.admin.loadPeople('acc_a', [{ id: 'per_delta', visits: visitOn('delta.example') }]);
    const byDomain = (await client.get('/v1/people?domain=delta.example', world.accountKey)).body;
    expect(byDomain.data.map((p: { id: string }) => p.id)).toEqual(['per_delta']);
    expect(byDomain.data[0]).toMatchObject({ domain: 'delta.example', clientRef: 'delta' });
    const byRef = (await client.get('/v1/people?client_ref=delta', world.accountKey)).body;
    expect(byRef.data.map((p: { id: string }) => p.id)).toEqual(['per_delta']);
  });

  it('come under a domain-scoped key already in use when they are subdomains of its domain, and no other key’s', async () => {
    const alphaKey = world.scopedKeys['alpha.example']!;
    const betaKey = world.scopedKeys['beta.example']!;
    await client.get('/v1/people', alphaKey);
    await world.api.admin.registerSite('acc_a', { domain: 'blog.alpha.example', clientRef: 'alpha' });
    await world.api.admin.loadPeople('acc_a', [{ id: 'per_blog', visits: visitOn('blog.alpha.example') }]);
    const first = (await client.get('/v1/people?limit=1', alphaKey)).body.data[0];
    expect(first).toMatchObject({ id: 'per_blog', domain: 'blog.alpha.example' });
    expect((await client.get('/v1/people/per_blog', alphaKey)).status).toBe(200);
    expect((await client.get('/v1/people/per_blog', betaKey)).status).toBe(404);
    const beta = await client.walk('/v1/people', betaKey);
    expect(beta.rows.some((p) => p.id === 'per_blog')).toBe(false);
  });
});
