import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { compareKeys, compareValues } from '../../core/exports/run-merge.ts';

/**
 * The writer merges sorted runs of members in JavaScript, so its comparison must order sort keys
 * exactly as SQLite's primary key does: if they disagreed, rows would come out of order (or be
 * skipped when a run is resumed after the last key written).
 */
describe('the merge order of export sort keys', () => {
  const db = new BetterSqlite3(':memory:');
  db.exec('create table k (v blob)');
  /** Values as SQLite orders them in a column without affinity. */
  const sqliteOrder = (values: (number | string)[]) => {
    db.exec('delete from k');
    const insert = db.prepare('insert into k values (?)');
    for (const v of values) insert.run(v);
    return db.prepare('select v from k order by v').pluck().all() as (number | string)[];
  };

  it('orders integers before text, integers by value and text by UTF-8 bytes, as SQLite does', () => {
    const values = [
      0, 3, -7, 1795176900, 12, 'b', 'a', 'B', '', 'ab', 'a b', 'zz', 'é', 'ü', 'ÿ', '中', '\uE000', '\uFFFD', '😀', '𝒜', 'a😀', 'a\uFFFF', '~', '0', '10', '9',
    ];
    expect([...values].sort(compareValues)).toEqual(sqliteOrder(values));
  });

  it('orders random mixed keys as SQLite does', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const alphabet = ['a', 'b', 'Z', ' ', '-', 'é', '\uD7FF', '\uE000', '\uFFEE', '😀', '𐍈', '0'];
    const values = Array.from({ length: 400 }, () =>
      random() < 0.3 ? Math.floor(random() * 1000) : Array.from({ length: 1 + Math.floor(random() * 4) }, () => alphabet[Math.floor(random() * alphabet.length)]).join(''),
    );
    expect([...values].sort(compareValues)).toEqual(sqliteOrder(values));
  });

  it('breaks ties on the first key by the second, then by person id', () => {
    const keys = [
      { k1: 'smith', k2: 'ann', person_id: 'p2' },
      { k1: 'smith', k2: 0, person_id: 'p9' },
      { k1: 0, k2: 'zoe', person_id: 'p5' },
      { k1: 'smith', k2: 'ann', person_id: 'p10' },
    ];
    expect([...keys].sort(compareKeys).map((k) => k.person_id)).toEqual(['p5', 'p9', 'p10', 'p2']);
  });
});
