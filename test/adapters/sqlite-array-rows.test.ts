import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../adapters/node/index.ts';

/**
 * The Node adapter reads rows as arrays and names their columns itself (adapters/node/array-rows.ts).
 * Whatever a query selects must arrive as better-sqlite3's own object rows would.
 */
describe('rows the Node adapter reads', () => {
  let dir: string | undefined;
  let db: Kysely<any> | undefined;
  afterEach(async () => {
    await db?.destroy();
    db = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  /** A file database with a table of every SQLite storage class, opened by the adapter and by better-sqlite3 alone. */
  const open = () => {
    dir = mkdtempSync(join(tmpdir(), 'vi-rows-'));
    const path = join(dir, 'rows.sqlite');
    const native = new BetterSqlite3(path);
    native.exec(`create table t (pk integer primary key, n integer, r real, s text, b blob, z text);
      insert into t (n, r, s, b, z) values (1, 1.5, 'São Paulo', x'00ff10', null), (9007199254740991, -0.25, '', x'', 'x'), (-3, 0, '{"a":"ã"}', null, null);`);
    db = openDatabase(path) as Kysely<any>;
    return native;
  };

  /** The rows of one SQL text, read by better-sqlite3 alone and through the adapter. */
  const readBoth = async (query: string) => {
    const native = open();
    const expected = native.prepare(query).all();
    native.close();
    const { rows } = await db!.executeQuery(sql.raw(query).compile(db!));
    return { expected, rows };
  };

  it('name every column of every row as better-sqlite3 names them, with the same values', async () => {
    const { expected, rows } = await readBoth('select pk, n, r, s, b, z, n + 1 as "n plus one", s || \'!\' as shout from t order by pk');
    expect(rows).toEqual(expected);
    expect(rows).toHaveLength(3);
    expect(Object.keys(rows[0] as object)).toEqual(['pk', 'n', 'r', 's', 'b', 'z', 'n plus one', 'shout']);
    expect((rows[0] as { b: Buffer }).b).toEqual(Buffer.from([0x00, 0xff, 0x10]));
  });

  it('name the one column of a one-column statement, of every storage class, as better-sqlite3 does, and the next statement reads whole rows again', async () => {
    const native = open();
    for (const column of ['pk', 'n', 'r', 's', 'b', 'z', "s || '!' as shout"]) {
      const query = `select ${column} from t order by pk`;
      const { rows } = await db!.executeQuery(sql.raw(query).compile(db!));
      expect(rows, column).toEqual(native.prepare(query).all());
      expect(rows, column).toHaveLength(3);
    }
    native.close();
    const one = () => db!.selectFrom('t').select('s').orderBy('pk').execute();
    const two = () => db!.selectFrom('t').select(['s', 'n']).orderBy('pk').execute();
    expect(await one()).toEqual([{ s: 'São Paulo' }, { s: '' }, { s: '{"a":"ã"}' }]);
    expect(await two()).toEqual([{ s: 'São Paulo', n: 1 }, { s: '', n: 9007199254740991 }, { s: '{"a":"ã"}', n: -3 }]);
    expect(await one()).toEqual([{ s: 'São Paulo' }, { s: '' }, { s: '{"a":"ã"}' }]);
  });

  it('keep the last of two columns of one name, as better-sqlite3 does', async () => {
    const { expected, rows } = await readBoth('select pk as v, s as v from t where pk = 1');
    expect(expected).toEqual([{ v: 'São Paulo' }]);
    expect(rows).toEqual(expected);
  });

  it('answer an empty result with no rows, and the same statement again with rows', async () => {
    open().close();
    const byPk = (pk: number) => db!.selectFrom('t').select(['pk', 's']).where('pk', '=', pk).execute();
    expect(await byPk(42)).toEqual([]);
    expect(await byPk(3)).toEqual([{ pk: 3, s: '{"a":"ã"}' }]);
  });

  it('stream object rows and run writes through the same statements', async () => {
    open().close();
    const streamed: unknown[] = [];
    for await (const row of db!.selectFrom('t').select(['pk', 'z']).orderBy('pk').stream()) streamed.push(row);
    expect(streamed).toEqual([{ pk: 1, z: null }, { pk: 2, z: 'x' }, { pk: 3, z: null }]);
    const inserted = await db!.insertInto('t').values({ n: 7, s: 'new' }).executeTakeFirst();
    expect(Number(inserted.insertId)).toBe(4);
    expect(await db!.selectFrom('t').select(['n', 's']).where('pk', '=', 4).execute()).toEqual([{ n: 7, s: 'new' }]);
    // A statement that returns rows from a write reads them as arrays too.
    const returned = await db!.updateTable('t').set({ s: 'changed' }).where('pk', '=', 4).returning(['pk', 's']).execute();
    expect(returned).toEqual([{ pk: 4, s: 'changed' }]);
  });
});
