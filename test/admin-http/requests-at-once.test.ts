import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createApi } from '../../adapters/node/index.ts';
import { MATRIX } from '../support/targets.ts';
import { undoMigrationsFrom } from '../support/undo-migrations.ts';
import { serveAdminWorld, type AdminSetup } from './support.ts';

for (const target of MATRIX) {
  describe(`admin requests that arrive together (${target.name})`, () => {
    let s: AdminSetup;
    serveAdminWorld(target, (setup) => (s = setup));

    const activeKeys = async (domain: string | null) =>
      ((await s.admin.get('/_admin/accounts/acc_b/keys')).body.data as { keyId: string; domain: string | null; revokedAt: string | null }[]).filter((k) => k.domain === domain && k.revokedAt === null);

    it('creates an account once when three requests for it arrive together, and answers each with it', async () => {
      const answers = await Promise.all(Array.from({ length: 3 }, () => s.admin.post('/_admin/accounts', { id: 'acc_new', name: 'New partner' })));
      expect(answers.map((a) => [a.status < 300, a.body.data])).toEqual(Array(3).fill([true, { id: 'acc_new', name: 'New partner' }]));
      const clash = await Promise.all([s.admin.post('/_admin/accounts', { id: 'acc_two', name: 'One' }), s.admin.post('/_admin/accounts', { id: 'acc_two', name: 'Two' })]);
      expect(clash.map((a) => a.status).sort()).toEqual([clash.find((a) => a.status < 300)!.status, 400]);
      expect(clash.find((a) => a.status === 400)!.body.error.message).toMatch(/^account acc_two already exists with another name \((One|Two)\)$/);
      expect((await s.admin.get('/_admin/accounts')).body.data.map((a: { id: string }) => a.id)).toEqual(['acc_a', 'acc_b', 'acc_new', 'acc_two']);
    });

    it('registers a site once when requests for it arrive together, and refuses one naming another clientRef', async () => {
      const same = await Promise.all(Array.from({ length: 3 }, () => s.admin.post('/_admin/accounts/acc_b/sites', { domain: 'twice.b.example', clientRef: 'b' })));
      expect(same.map((a) => [a.status < 300, a.body.data])).toEqual(Array(3).fill([true, { domain: 'twice.b.example', clientRef: 'b' }]));
      const clash = await Promise.all([s.admin.post('/_admin/accounts/acc_b/sites', { domain: 'other.b.example', clientRef: 'x' }), s.admin.post('/_admin/accounts/acc_b/sites', { domain: 'other.b.example', clientRef: 'y' })]);
      expect(clash.map((a) => a.status).sort()).toEqual([clash.find((a) => a.status < 300)!.status, 400]);
      expect(clash.find((a) => a.status === 400)!.body.error.message).toMatch(/^site other\.b\.example is already registered with clientRef [xy]$/);
      const sites = (await s.admin.get('/_admin/accounts/acc_b/sites')).body.data as { domain: string }[];
      expect(sites.map((site) => site.domain)).toEqual(['alpha.example', 'other.b.example', 'twice.b.example']);
    });

    it('issues a site one key when four requests for its key arrive together, and tells the others it has one', async () => {
      await s.admin.post('/_admin/accounts/acc_b/sites', { domain: 'race.b.example' });
      const answers = await Promise.all(Array.from({ length: 4 }, () => s.admin.post('/_admin/accounts/acc_b/keys', { domain: 'race.b.example' })));
      const issued = answers.filter((a) => a.status < 300);
      expect(issued).toHaveLength(1);
      for (const refused of answers.filter((a) => a.status >= 300)) {
        expect(refused.status).toBe(400);
        expect(refused.body.error.message).toBe('site race.b.example already has an active key: rotate or revoke it');
      }
      expect((await activeKeys('race.b.example')).map((k) => k.keyId)).toEqual([issued[0]!.body.data.keyId]);
      expect((await s.client.get('/v1/stats', issued[0]!.body.data.key)).status).toBe(200);
    });

    it('gives a key one successor when three rotations of it arrive together, and the old key stops', async () => {
      await s.admin.post('/_admin/accounts/acc_b/sites', { domain: 'spin.b.example' });
      const first = (await s.admin.post('/_admin/accounts/acc_b/keys', { domain: 'spin.b.example' })).body.data;
      const answers = await Promise.all(Array.from({ length: 3 }, () => s.admin.post(`/_admin/keys/${first.keyId}/rotate`)));
      const rotated = answers.filter((a) => a.status < 300);
      expect(rotated).toHaveLength(1);
      for (const refused of answers.filter((a) => a.status >= 300)) {
        expect(refused.status).toBe(400);
        expect(refused.body.error.message).toBe(`key ${first.keyId} is already revoked`);
      }
      const successor = rotated[0]!.body.data;
      expect((await activeKeys('spin.b.example')).map((k) => k.keyId)).toEqual([successor.keyId]);
      expect((await s.client.get('/v1/stats', first.key)).status).toBe(403);
      expect((await s.client.get('/v1/stats', successor.key)).status).toBe(200);
    });

    it('stores a key value once when two requests import it together', async () => {
      const value = `vi_live_${'7c'.repeat(20)}`;
      const answers = await Promise.all([s.admin.post('/_admin/accounts/acc_b/keys', { value }), s.admin.post('/_admin/accounts/acc_b/keys', { value })]);
      expect(answers.map((a) => a.status).sort()).toEqual([answers.find((a) => a.status < 300)!.status, 400]);
      expect(answers.find((a) => a.status === 400)!.body.error.message).toBe('that key value is already in use');
      expect((await activeKeys(null)).filter((k) => k.keyId === answers.find((a) => a.status < 300)!.body.data.keyId)).toHaveLength(1);
    });
  });
}

describe('a database an earlier version left with two active keys for a site, or two keys of one value', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vi-key-races-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the newest of the site keys and the first of the same-value keys active when it migrates', async () => {
    const database = join(dir, 'old.sqlite');
    const api = await createApi({ database });
    await api.admin.createAccount({ id: 'acc_a', name: 'A' });
    await api.admin.registerSite('acc_a', { domain: 'a.example' });
    const older = await api.admin.issueScopedKey('acc_a', 'a.example');
    const shared = await api.admin.issueAccountKey('acc_a');
    await undoMigrationsFrom(api.db, '0011_one_active_key');
    // What two requests at once could leave before: a second active key for the site, issued a minute later, and a second row of one value.
    await sql`insert into api_keys (id, account_id, site_pk, lookup, hash, label, created_at, revoked_at, replaced_by)
      select 'key_newer', account_id, site_pk, 'newerlookup', 'newerhash', label, created_at + 60, null, null from api_keys where id = ${older.keyId}`.execute(api.db);
    await sql`insert into api_keys (id, account_id, site_pk, lookup, hash, label, created_at, revoked_at, replaced_by)
      select 'key_twin', account_id, site_pk, lookup, hash, label, created_at + 5, null, null from api_keys where id = ${shared.keyId}`.execute(api.db);
    const issuedAt = Number((await sql<{ t: number }>`select created_at as t from api_keys where id = 'key_newer'`.execute(api.db)).rows[0]!.t);
    await api.close();
    await api.db.destroy();

    const reopened = await createApi({ database });
    try {
      const keys = await reopened.admin.listKeys('acc_a');
      const byId = new Map(keys.map((k) => [k.keyId, k]));
      expect(byId.get('key_newer')!.revokedAt).toBeNull();
      expect(byId.get(older.keyId)!.revokedAt).toBe(issuedAt);
      expect(byId.get(shared.keyId)!.revokedAt).toBeNull();
      expect(byId.get('key_twin')!.revokedAt).not.toBeNull();
      // The value reaches the first key, the one it was issued as.
      expect(await reopened.admin.describeKey(shared.key)).toMatchObject({ keyId: shared.keyId });
      await expect(reopened.admin.issueScopedKey('acc_a', 'a.example')).rejects.toThrow(/already has an active key/);
    } finally {
      await reopened.close();
    }
  });
});
