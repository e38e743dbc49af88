import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, type Api, type Database } from '../../adapters/node/index.ts';
import { openPostgres } from '../../adapters/shared/postgres.ts';
import { WebhooksStore } from '../../core/store/webhooks-store.ts';
import { schemaUrl } from '../support/processes.ts';

const serverUrl = process.env.VI_TEST_POSTGRES_URL;
/** A moment when every delivery loaded below is due (they fall due when loaded, by the system clock). */
const NOW = Math.floor(Date.now() / 1000) + 3600;
const DELIVERIES = 40;

// Sessions of their own on a real server claim as API processes would (PGlite has one session).
describe.each(serverUrl ? [serverUrl] : [])('webhook deliveries claimed from several Postgres sessions (%s)', (url) => {
  let api: Api;
  let endpointId: string;
  const sessions: Kysely<Database>[] = [];
  let target: string;

  beforeAll(async () => {
    target = (await schemaUrl(url)).url;
    api = await createApi({ database: target, webhooks: { background: false } });
    await api.admin.createAccount({ id: 'acc_claims', name: 'Claims' });
    await api.admin.registerSite('acc_claims', { domain: 'claims.example' });
    // Nothing listens on port 9: the deliveries only wait in the outbox to be claimed.
    endpointId = (await api.admin.webhooks.create('acc_claims', { url: 'http://127.0.0.1:9/hook' })).id;
    const seen = new Date(Date.now() - 3_600_000).toISOString();
    await api.admin.loadPeople(
      'acc_claims',
      Array.from({ length: DELIVERIES }, (_, i) => ({ id: `per_${i}`, visits: [{ domain: 'claims.example', visitCount: 1, firstSeen: seen, lastSeen: seen }] })),
    );
  });

  afterAll(async () => {
    for (const db of sessions) await db.destroy();
    await api?.close();
  });

  async function session(): Promise<Kysely<Database>> {
    const db = await openPostgres(target);
    sessions.push(db);
    return db;
  }

  /** Gives every claim back, so each test starts with all deliveries free. */
  const releaseAll = () => api.db.updateTable('webhook_deliveries').set({ lease_owner: null, lease_until: null }).execute();

  it('gives each due delivery to exactly one of four claimers running at once', async () => {
    await releaseAll();
    const claimers = await Promise.all(Array.from({ length: 4 }, async (_, i) => ({ owner: `dsp_${i}`, store: new WebhooksStore(await session()) })));
    const claimed = await Promise.all(
      claimers.map(async ({ owner, store }) => {
        const mine: number[] = [];
        for (;;) {
          const got = await store.claim(endpointId, NOW, { owner, now: NOW, until: NOW + 60 }, 3);
          mine.push(...got.map((d) => d.pk));
          if (got.length === 0 && (await api.db.selectFrom('webhook_deliveries').select('pk').where('lease_owner', 'is', null).executeTakeFirst()) === undefined) return mine;
        }
      }),
    );
    const all = claimed.flat();
    expect(all).toHaveLength(DELIVERIES);
    expect(new Set(all).size).toBe(DELIVERIES);
  });

  it("skips the deliveries another session is claiming, instead of waiting for its claim and finding them taken", async () => {
    await releaseAll();
    const [first, second] = [await session(), await session()];
    await first.transaction().execute(async (trx) => {
      const held = await new WebhooksStore(trx).claim(endpointId, NOW, { owner: 'dsp_first', now: NOW, until: NOW + 60 }, 5);
      expect(held).toHaveLength(5);
      // The first claim is not committed yet: its rows are locked.
      const waiting = new Promise<'blocked'>((resolve) => setTimeout(() => resolve('blocked'), 5000));
      const other = await Promise.race([new WebhooksStore(second).claim(endpointId, NOW, { owner: 'dsp_second', now: NOW, until: NOW + 60 }, 5), waiting]);
      expect(other).not.toBe('blocked');
      const pks = (other as { pk: number }[]).map((d) => d.pk);
      expect(pks).toHaveLength(5);
      expect(pks.filter((pk) => held.some((h) => h.pk === pk))).toEqual([]);
    });
  });
});
