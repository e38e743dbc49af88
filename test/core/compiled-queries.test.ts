import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openDatabase, type Db } from '../../adapters/node/index.ts';
import { CompiledQueries } from '../../core/store/compiled-queries.ts';
import { migrateToLatest } from '../../core/store/migrations.ts';

let db: Db;

beforeEach(async () => {
  db = openDatabase(':memory:');
  await migrateToLatest(db);
  await db.insertInto('accounts').values([{ id: 'acc_a', name: 'A', created_at: 1 }, { id: 'acc_b', name: 'B', created_at: 1 }]).execute();
  const sites = ['alpha.com', 'beta.com', 'gamma.com', 'delta.com'].map((domain, i) => ({
    account_id: i < 3 ? 'acc_a' : 'acc_b',
    domain,
    client_ref: i % 2 === 0 ? 'even' : null,
    created_at: 100 + i,
  }));
  await db.insertInto('sites').values(sites).execute();
});

afterEach(async () => {
  await db.destroy();
});

describe('queries compiled once per shape', () => {
  const byAccount = (queries: CompiledQueries, accountId: string, minCreated: number) =>
    queries.rows(
      'by-account',
      (p) =>
        db
          .selectFrom('sites')
          .select('domain')
          .where('account_id', '=', p('accountId'))
          .where('created_at', '>=', p('minCreated'))
          .where('client_ref', 'is not', null)
          .where(sql<boolean>`length(domain) > ${5}`)
          .orderBy('domain'),
      { accountId, minCreated },
    );

  it('return for new values what the same query built afresh returns', async () => {
    const queries = new CompiledQueries(db);
    for (const [accountId, minCreated] of [['acc_a', 0], ['acc_a', 102], ['acc_b', 0], ['acc_c', 0]] as const) {
      const fresh = await db
        .selectFrom('sites')
        .select('domain')
        .where('account_id', '=', accountId)
        .where('created_at', '>=', minCreated)
        .where('client_ref', 'is not', null)
        .where(sql<boolean>`length(domain) > ${5}`)
        .orderBy('domain')
        .execute();
      expect(await byAccount(queries, accountId, minCreated)).toEqual(fresh);
    }
    expect(await byAccount(queries, 'acc_a', 0)).toEqual([{ domain: 'alpha.com' }, { domain: 'gamma.com' }]);
  });

  it('keep the constants a query was built with and bind only the named values', async () => {
    const queries = new CompiledQueries(db);
    const limited = (limit: number) =>
      queries.rows('limited', (p) => db.selectFrom('sites').select('domain').where('domain', '!=', 'beta.com').orderBy('domain').limit(p('limit')), { limit });
    expect(await limited(1)).toEqual([{ domain: 'alpha.com' }]);
    expect(await limited(10)).toEqual([{ domain: 'alpha.com' }, { domain: 'delta.com' }, { domain: 'gamma.com' }]);
  });

  it('refuse a shape whose values and placeholders do not match', async () => {
    const queries = new CompiledQueries(db);
    const build = (p: (name: string) => unknown) => db.selectFrom('sites').select('domain').where('account_id', '=', p('accountId') as string);
    await expect(queries.rows('missing', build, {})).rejects.toThrow(/binds accountId/);
    await expect(queries.rows('extra', build, { accountId: 'acc_a', other: 1 })).rejects.toThrow(/given accountId, other/);
  });
});

describe('the statement cache under Kysely', () => {
  it('runs the same SQL again after a stream of it was abandoned half-way', async () => {
    const query = db.selectFrom('sites').select('domain').orderBy('domain');
    for await (const row of query.stream()) {
      expect(row.domain).toBe('alpha.com');
      break;
    }
    expect((await query.execute()).map((r) => r.domain)).toEqual(['alpha.com', 'beta.com', 'delta.com', 'gamma.com']);
    const streamed: string[] = [];
    for await (const row of query.stream()) streamed.push(row.domain);
    expect(streamed).toHaveLength(4);
  });

  it('sees rows written after a statement was first prepared', async () => {
    const count = () => db.selectFrom('sites').select(db.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect((await count()).n).toBe(4);
    await db.insertInto('sites').values({ account_id: 'acc_b', domain: 'epsilon.com', client_ref: null, created_at: 200 }).execute();
    expect((await count()).n).toBe(5);
  });
});
