import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { kyselyOver, plannedWithoutValues } from '../../adapters/shared/sqlite-shim.ts';

const NAMES = ['alpha', 'Beta', 'gamma', 'abc', 'b_c', 'b%c', 'ä', '', 'ALPHABET'];
const LIMITS = [0, 1, 3, 9, 100, -1];
const PATTERNS = ['a%', '%B%', '_b%', 'b\\_c', '%', '', 'ä', 'b%c', '%c'];

/** An in-memory database of NAMES, with the SQL each statement was prepared from. */
function namesDatabase() {
  const native = new BetterSqlite3(':memory:');
  native.exec('create table names (pk integer primary key, name text not null); create index names_by_name on names (name)');
  const insert = native.prepare('insert into names (name) values (?)');
  for (const name of NAMES) insert.run(name);
  const prepared: string[] = [];
  const db = kyselyOver({
    prepare: (text: string) => (prepared.push(text), native.prepare(text)),
    close: () => native.close(),
    returnsRows: (statement) => statement.reader,
  });
  return { native, db, prepared };
}

describe('statements the SQLite adapters prepare', () => {
  let opened: ReturnType<typeof namesDatabase> | undefined;
  afterEach(async () => {
    await opened?.db.destroy();
    opened = undefined;
  });

  it('turn a bare LIMIT or LIKE parameter into an expression and leave every other parameter bare', () => {
    expect(plannedWithoutValues('select "a" from "t" where "b" like ? and "c" = ? order by "a" limit ? offset ?')).toBe(
      'select "a" from "t" where "b" like +? and "c" = ? order by "a" limit +? offset ?',
    );
    expect(plannedWithoutValues('select 1 from t where x = ? union all select 2 from t limit ?')).toBe('select 1 from t where x = ? union all select 2 from t limit +?');
    expect(plannedWithoutValues('select 1 limit 10')).toBe('select 1 limit 10');
  });

  it('answer what the bare parameters answer, for every limit and pattern', () => {
    opened = namesDatabase();
    const bare = 'select name from names where name like ? order by pk limit ?';
    const asPrepared = opened.native.prepare(plannedWithoutValues(bare));
    const asWritten = opened.native.prepare(bare);
    let rowsSeen = 0;
    for (const pattern of PATTERNS) {
      for (const limit of LIMITS) {
        const expected = asWritten.all(pattern, limit);
        rowsSeen += expected.length;
        expect(asPrepared.all(pattern, limit), `like ${JSON.stringify(pattern)} limit ${limit}`).toEqual(expected);
      }
    }
    expect(rowsSeen).toBeGreaterThan(20);
  });

  it('run Kysely queries with limits and patterns through the statement prepared once', async () => {
    opened = namesDatabase();
    const { db, native, prepared } = opened;
    const page = (pattern: string, limit: number) => db.selectFrom('names' as never).select(sql<string>`name`.as('name')).where(sql.ref('name'), 'like', pattern).orderBy(sql.ref('pk')).limit(limit).execute();
    for (const [pattern, limit] of [['%a%', 2], ['%a%', 5], ['b%', 1]] as const) {
      const expected = native.prepare('select name from names where name like ? order by pk limit ?').all(pattern, limit);
      expect(await page(pattern, limit)).toEqual(expected);
    }
    expect(prepared).toEqual(['select name as "name" from "names" where "name" like +? order by "pk" limit +?']);
  });
});
