import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../core/index.ts';
import { kyselyOverPool } from '../../adapters/shared/postgres.ts';
import { StatementNames } from '../../adapters/shared/postgres-statements.ts';
import { freshSchema } from '../support/schema-names.ts';

describe('statement names', () => {
  it('gives each statement text one name, and the same name every time', () => {
    const names = new StatementNames();
    const first = names.nameOf('select 1');
    expect(first).toMatch(/^vi_[0-9a-f]{16}$/);
    expect(names.nameOf('select 1')).toBe(first);
    expect(names.nameOf('select 2')).not.toBe(first);
  });

  it('gives a text the same name in every process, from the text alone, and different texts different names', () => {
    const texts = Array.from({ length: 300 }, (_, i) => `select a from t where a = $1 and b = ${i}`);
    const here = texts.map((t) => new StatementNames().nameOf(t));
    const there = new StatementNames();
    expect(texts.map((t) => there.nameOf(t))).toEqual(here);
    expect(new Set(here).size).toBe(texts.length);
  });

  it('leaves what cannot be prepared unnamed: DDL, settings, transaction control', () => {
    const names = new StatementNames();
    for (const text of ['create table t (a int)', 'set search_path to x', 'begin', 'commit', 'vacuum t']) expect(names.nameOf(text)).toBeUndefined();
    for (const text of ['with x as (select 1) select * from x', 'insert into t values ($1)', 'update t set a = 1', 'delete from t', 'SELECT 1']) expect(names.nameOf(text)).toBeDefined();
  });

  it('names no more texts than its cap, and never names a refused text again nor reuses its name', () => {
    const names = new StatementNames(2);
    const a = names.nameOf('select 1');
    names.refuse('select 1');
    expect(names.nameOf('select 1')).toBeUndefined();
    const b = names.nameOf('select 2');
    expect(b).not.toBe(a);
    expect(names.nameOf('select 3')).toBeUndefined();
  });
});

const serverUrl = process.env.VI_TEST_POSTGRES_URL;

// With a server (VI_TEST_POSTGRES_URL): what the server itself holds on the pool's one connection.
describe.each(serverUrl ? [serverUrl] : [])('prepared statements on a PostgreSQL server (%s)', (url) => {
  const schema = freshSchema();
  let pool: pg.Pool;
  let db: Kysely<Database>;
  /** The statements the connection has prepared, by their text. */
  const prepared = async () => (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(db)).rows.map((r) => r.statement);

  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create schema "${schema}"`);
    await admin.end();
    pool = new pg.Pool({ connectionString: url, max: 1, options: `-c search_path=${schema}` });
    db = await kyselyOverPool(pool);
    await sql`create table t (a int)`.execute(db);
    await sql`insert into t values (1), (2)`.execute(db);
  });
  afterAll(async () => {
    await db?.destroy();
  });

  it('prepares a statement sent on its own by name, and answers it the same each time', async () => {
    const query = () => sql<{ a: number }>`select a from t where a >= ${1} order by a`.execute(db);
    for (let i = 0; i < 7; i++) expect((await query()).rows).toEqual([{ a: 1 }, { a: 2 }]);
    expect(await prepared()).toContain('select a from t where a >= $1 order by a');
  });

  it('runs a text of several statements without values, as pg does unnamed', async () => {
    await sql`select 1; insert into t values (3)`.execute(db);
    const { rows } = await sql<{ n: number }>`select count(*) as n from t where a = ${3}`.execute(db);
    expect(rows).toEqual([{ n: 1 }]);
  });

  it('leaves the statements of a transaction unnamed', async () => {
    await db.transaction().execute(async (trx) => {
      await sql`select a from t where a = ${2}`.execute(trx);
    });
    expect(await prepared()).not.toContain('select a from t where a = $1');
  });

  it('answers a statement prepared before its table changed columns, by sending it unnamed', async () => {
    const query = () => sql<Record<string, number>>`select * from t where a = ${1}`.execute(db);
    expect((await query()).rows).toEqual([{ a: 1 }]);
    // Another process's migration, as a deployment would run it.
    const other = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
    await other.connect();
    await other.query('alter table t add column b int default 7');
    await other.end();
    expect((await query()).rows).toEqual([{ a: 1, b: 7 }]);
    expect((await query()).rows).toEqual([{ a: 1, b: 7 }]);
  });

  it('names a new text for a second API opened over the same pool, whose connection holds the first one\'s names', async () => {
    const again = await kyselyOverPool(pool);
    const { rows } = await sql<{ a: number }>`select a from t where a = ${1} and a > ${0}`.execute(again);
    expect(rows).toEqual([{ a: 1 }]);
    expect(await prepared()).toContain('select a from t where a = $1 and a > $2');
  });

  it('answers a statement the server connection no longer holds (DISCARD ALL, a pooler), by sending it unnamed', async () => {
    const query = () => sql<{ a: number }>`select a from t where a = ${2}`.execute(db);
    expect((await query()).rows).toEqual([{ a: 2 }]);
    await sql`deallocate all`.execute(db);
    expect((await query()).rows).toEqual([{ a: 2 }]);
    expect((await query()).rows).toEqual([{ a: 2 }]);
  });

  it('prepares nothing by name when told a pooler sits in front (a URL\'s pgbouncer=true)', async () => {
    const single = new pg.Pool({ connectionString: url, max: 1, options: `-c search_path=${schema}` });
    const unnamed = await kyselyOverPool(single, undefined, { namedStatements: false });
    try {
      for (let i = 0; i < 3; i++) expect((await sql<{ a: number }>`select a from t where a < ${2} and a > ${0}`.execute(unnamed)).rows).toEqual([{ a: 1 }]);
      expect((await sql<{ n: number }>`select count(*) as n from pg_prepared_statements`.execute(unnamed)).rows).toEqual([{ n: 0 }]);
    } finally {
      await unnamed.destroy();
    }
  });
});
