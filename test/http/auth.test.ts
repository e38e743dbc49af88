import { describe, expect, it } from 'vitest';
import { errorCode } from '../support/client.ts';
import { MATRIX, serveWorld, type Client } from '../support/targets.ts';
import type { World } from '../support/world.ts';

describe.each(MATRIX)('authentication ($name)', (target) => {
  let world: World;
  let client: Client;
  serveWorld(target, {}, (w, c) => ((world = w), (client = c)));

  it('answers the health check without a key', async () => {
    const reply = await client.get('/v1/health');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ status: 'ok', version: '1.0.0', time: '2026-11-21T12:00:00Z' });
  });

  it('answers 401 unauthorized when the key is missing or empty', async () => {
    for (const key of [undefined, '', '   ']) {
      const reply = await client.get('/v1/people', key);
      expect(reply.status).toBe(401);
      expect(errorCode(reply)).toBe('unauthorized');
      expect(reply.body.error.message).toMatch(/X-API-Key/);
    }
  });

  it('answers 403 forbidden for malformed and unknown keys alike', async () => {
    const unknown = `vi_live_${'0'.repeat(40)}`;
    const near = world.accountKey.slice(0, -1) + (world.accountKey.endsWith('a') ? 'b' : 'a');
    const replies = await Promise.all(['nonsense', `${world.accountKey}x`, world.accountKey.toUpperCase(), unknown, near].map((k) => client.get('/v1/people', k)));
    for (const reply of replies) {
      expect(reply.status).toBe(403);
      expect(errorCode(reply)).toBe('forbidden');
    }
    // One message for every kind of bad key, so the answer reveals nothing about which part was wrong.
    expect(new Set(replies.map((r) => r.body.error.message)).size).toBe(1);
  });

  it('accepts every endpoint with a valid account key', async () => {
    for (const path of ['/v1/people', '/v1/people/per_001', '/v1/people/per_001/events', '/v1/companies', '/v1/companies/co_01', '/v1/stats']) {
      expect((await client.get(path, world.accountKey)).status, path).toBe(200);
    }
  });

  it('stops a revoked key at once and leaves the other keys working', async () => {
    const issued = await world.api.admin.issueAccountKey('acc_a', { label: 'to revoke' });
    expect((await client.get('/v1/stats', issued.key)).status).toBe(200);
    await world.api.admin.revokeKey(issued.keyId);
    const reply = await client.get('/v1/stats', issued.key);
    expect(reply.status).toBe(403);
    expect(errorCode(reply)).toBe('forbidden');
    expect((await client.get('/v1/stats', world.accountKey)).status).toBe(200);
  });

  it('stops the old key at once when a key is rotated, and the new key reads the same scope', async () => {
    const domain = 'gamma.example';
    const keys = await world.api.admin.listKeys('acc_a');
    const current = keys.find((k) => k.domain === domain && k.revokedAt === null)!;
    const before = await client.get('/v1/people?limit=100', world.scopedKeys[domain]);
    const rotated = await world.api.admin.rotateKey(current.keyId);
    expect(rotated.key).not.toBe(world.scopedKeys[domain]);
    expect(rotated.domain).toBe(domain);
    expect((await client.get('/v1/people', world.scopedKeys[domain])).status).toBe(403);
    const after = await client.get('/v1/people?limit=100', rotated.key);
    expect(after.status).toBe(200);
    expect(after.body.data).toEqual(before.body.data);
    world.scopedKeys[domain] = rotated.key;
  });

  it('stores keys only as SHA-256 hashes', async () => {
    const rows = await world.api.db.selectFrom('api_keys').selectAll().execute();
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(world.accountKey);
    expect(dump).not.toContain(world.accountKey.slice(8));
    for (const row of rows) expect(row.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('issues keys as the fixed prefix followed by 40 hex characters', () => {
    for (const key of [world.accountKey, ...Object.values(world.scopedKeys)]) expect(key).toMatch(/^vi_live_[0-9a-f]{40}$/);
  });
});
