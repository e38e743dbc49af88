import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createApi, ManualClock, type Api } from '../../adapters/node/index.ts';
import { POSTGRES_BACKENDS, reopenableDatabases } from '../support/backends.ts';
import { undoMigrationsFrom } from '../support/undo-migrations.ts';

const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);

/** `rate_limits`' persistence as pg_class spells it: 'u' unlogged, 'p' permanent. */
async function persistence(db: Kysely<any>): Promise<string> {
  const { rows } = await sql<{ p: string }>`select relpersistence as p from pg_class where oid = 'rate_limits'::regclass`.execute(db);
  return rows[0]!.p;
}

/**
 * What `X-RateLimit-Remaining` says after one more request with `key`. A companies page: undoing
 * 0015 undoes the migrations after it too, and the people list reads what 0016 added.
 */
async function remainingAfterRequest(api: Api, key: string): Promise<string | null> {
  const res = await api.fetch(new Request('http://api.test/v1/companies', { headers: { 'x-api-key': key } }));
  expect(res.status).toBe(200);
  await res.arrayBuffer();
  return res.headers.get('x-ratelimit-remaining');
}

describe.each(POSTGRES_BACKENDS)('rate-limit windows on $name', (backend) => {
  const databases = reopenableDatabases(backend);

  it('live in an unlogged table, and a database counted in before it was made so keeps its counts', async () => {
    const database = await databases.fresh();
    const open = async () => databases.keep(await createApi({ database, clock: new ManualClock(NOW), rateLimits: { accountPerHour: 10, scopedKeyPerHour: 10 } }));
    const api = await open();
    await api.admin.createAccount({ id: 'acc_a', name: 'A' });
    const { key } = await api.admin.issueAccountKey('acc_a');
    expect(await persistence(api.db)).toBe('u');

    await undoMigrationsFrom(api.db, '0015_rate_limits_unlogged');
    expect(await persistence(api.db)).toBe('p');
    for (const remaining of ['9', '8', '7']) expect(await remainingAfterRequest(api, key)).toBe(remaining);
    await databases.close(api);

    const reopened = await open();
    expect(await persistence(reopened.db)).toBe('u');
    expect(await remainingAfterRequest(reopened, key)).toBe('6');
  });
});
