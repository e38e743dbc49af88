import { describe, expect, it } from 'vitest';
import { errorCode } from '../support/client.ts';
import { MATRIX, serveWorld, type Client } from '../support/targets.ts';
import { walkFrom } from '../support/walks.ts';
import { SITES, type World } from '../support/world.ts';

const DOMAINS = SITES.map((s) => s.domain);

// docs/implementation-choices.md, "Ordering and paging": a cursor's HMAC covers the endpoint, its filters and the key's
// scope (core/scope/view.ts `scopeTag`: the account, and for a domain-scoped key its site), not
// the key itself, so "cursors work across keys of the same scope (e.g. after a key rotation)".
// A rotated-away key stops at once (docs/implementation-choices.md, "Keys and limits"), and a cursor of one scope is
// 400 invalid_cursor in any other.
describe.each(MATRIX)('cursors across a key rotation ($name)', (target) => {
  let world: World;
  let client: Client;
  serveWorld(target, {}, (w, c) => ((world = w), (client = c)), { per: 'test' });

  /** Rotates a key through the admin surface and returns the key that replaces it. */
  const rotate = async (key: string) => {
    const info = await world.api.admin.describeKey(key);
    expect(info, 'the key is active before the rotation').not.toBeNull();
    return (await world.api.admin.rotateKey(info!.keyId)).key;
  };
  const expectInvalidCursor = async (path: string, key: string) => {
    const reply = await client.get(path, key);
    expect(reply.status, path).toBe(400);
    expect(errorCode(reply)).toBe('invalid_cursor');
    expect(reply.body.data).toBeUndefined();
  };

  it('lets the key that replaced a rotated domain-scoped key finish its walks: people, companies and a journey, as if uninterrupted', async () => {
    const old = world.scopedKeys['beta.example']!;
    const paths = ['/v1/people', '/v1/companies', `/v1/people/${world.travellerId}/events`];
    const full = new Map<string, any[]>();
    const cursors = new Map<string, { first: any[]; cursor: string }>();
    for (const path of paths) {
      full.set(path, (await client.walk(path, old, 100)).rows);
      const first = (await client.get(`${path}?limit=3`, old)).body;
      expect(first.pagination.nextCursor, `${path} has a second page`).toEqual(expect.any(String));
      cursors.set(path, { first: first.data, cursor: first.pagination.nextCursor });
    }
    const fresh = await rotate(old);

    for (const path of paths) {
      const { first, cursor } = cursors.get(path)!;
      // The old key is refused before its cursor is even read.
      const refused = await client.get(`${path}?limit=3&cursor=${encodeURIComponent(cursor)}`, old);
      expect(refused.status, path).toBe(403);
      expect(errorCode(refused)).toBe('forbidden');
      const rest = await walkFrom(client, path, fresh, cursor, 3);
      expect([...first, ...rest], path).toEqual(full.get(path));
    }
  });

  it('lets the key that replaced a rotated account key finish its walk', async () => {
    const { rows: full } = await client.walk('/v1/people?hot_leads=true', world.accountKey, 100);
    const first = (await client.get('/v1/people?hot_leads=true&limit=4', world.accountKey)).body;
    const fresh = await rotate(world.accountKey);
    const rest = await walkFrom(client, '/v1/people?hot_leads=true', fresh, first.pagination.nextCursor, 4);
    expect([...first.data, ...rest]).toEqual(full);
  });

  it('keeps a rotated scoped key’s cursor bound to its site: replayed by any other key it is invalid_cursor and shows no row', async () => {
    const old = world.scopedKeys['alpha.example']!;
    const first = (await client.get('/v1/people?limit=4', old)).body;
    const cursor = encodeURIComponent(first.pagination.nextCursor);
    const fresh = await rotate(old);
    // Rotate another site's key too: a new key of another site is still another scope.
    const betaFresh = await rotate(world.scopedKeys['beta.example']!);
    const others = [
      betaFresh,
      world.accountKey,
      world.secondAccountKey,
      world.otherAccountKey,
      ...DOMAINS.filter((d) => d !== 'alpha.example' && d !== 'beta.example').map((d) => world.scopedKeys[d]!),
    ];
    for (const other of others) {
      await expectInvalidCursor(`/v1/people?limit=4&cursor=${cursor}`, other);
      // Naming alpha's site in the filters does not make the cursor theirs either.
      await expectInvalidCursor(`/v1/people?limit=4&domain=alpha.example&cursor=${cursor}`, other);
    }
    // The rotated key still reads alpha's next page, and only alpha's people (its domain and its subdomain's).
    const next = await client.get(`/v1/people?limit=4&cursor=${cursor}`, fresh);
    expect(next.status).toBe(200);
    expect(next.body.data.length).toBeGreaterThan(0);
    expect(next.body.data.every((p: any) => p.domain === 'alpha.example' || p.domain === 'shop.alpha.example')).toBe(true);
  });

  it('refuses, to a rotated key, the cursors another site’s key was given', async () => {
    const betaFirst = (await client.get('/v1/people?limit=4', world.scopedKeys['beta.example']!)).body;
    const accountFirst = (await client.get('/v1/people?limit=4', world.accountKey)).body;
    const fresh = await rotate(world.scopedKeys['alpha.example']!);
    for (const cursor of [betaFirst.pagination.nextCursor, accountFirst.pagination.nextCursor]) {
      await expectInvalidCursor(`/v1/people?limit=4&cursor=${encodeURIComponent(cursor)}`, fresh);
    }
  });

  it('lets a key issued afresh for the same site after a revocation continue the walk: the cursor names the site, not the key', async () => {
    const old = world.scopedKeys['gamma.example']!;
    const { rows: full } = await client.walk('/v1/people', old, 100);
    const first = (await client.get('/v1/people?limit=5', old)).body;
    await world.api.admin.revokeKey((await world.api.admin.describeKey(old))!.keyId);
    const reissued = (await world.api.admin.issueScopedKey('acc_a', 'gamma.example')).key;
    const rest = await walkFrom(client, '/v1/people', reissued, first.pagination.nextCursor, 5);
    expect([...first.data, ...rest]).toEqual(full);
  });
});
