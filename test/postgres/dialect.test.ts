import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../adapters/node/index.ts';
import { dialectOf, jsonScalar } from '../../core/store/dialect/index.ts';
import { isoSeconds } from '../../core/time/iso.ts';
import { POSTGRES_BACKENDS, type OpenedDatabase } from '../support/backends.ts';
import { kyselyOverPool } from '../../adapters/shared/postgres.ts';

/** Text JSON must escape, or must not: every control character, quotes, backslashes, non-ASCII, emoji, separators. */
const TEXTS = [
  ...Array.from({ length: 32 }, (_, c) => `c${String.fromCharCode(c === 0 ? 32 : c)}`),
  '"', '\\', '/', '\u007f', '\u0080', '\u00ff', 'é', '東京', '😀', '\u2028', '\u2029', '\ufeff', '', "'", '</script>',
];

describe.each(POSTGRES_BACKENDS)('the Postgres dialect on $name writes what the SQLite dialect writes', (backend) => {
  let opened: OpenedDatabase;
  let pg: Kysely<Database>;
  const sqlite = openDatabase(':memory:');

  beforeAll(async () => {
    opened = await backend.open();
    pg = typeof opened.database === 'string' ? openDatabase(opened.database) : 'selectFrom' in opened.database ? opened.database : await kyselyOverPool(opened.database);
  });
  afterAll(async () => {
    await sqlite.destroy();
    await opened?.drop();
  });

  /** One JSON object per text, written by each database's dialect. */
  async function objectsOf(db: Kysely<Database>): Promise<string[]> {
    const dialect = dialectOf(db);
    const rows = sql.join(TEXTS.map((t, i) => sql`select cast(${i} as integer) as i, cast(${t} as text) as t, cast(${i * 1_000_003} as bigint) as n, cast(${i % 2} as integer) as b`), sql` union all `);
    const json = dialect.jsonObject({ text: jsonScalar(sql.ref('t')), number: jsonScalar(sql.ref('n')), none: jsonScalar(sql`cast(null as text)`), flag: dialect.jsonBoolean(sql.ref('b')) });
    const { rows: out } = await sql<{ json: string }>`select ${json} as json from (${rows}) x order by i`.execute(db);
    return out.map((r) => r.json);
  }

  it('builds JSON objects byte for byte as SQLite does, escapes included', async () => {
    const expected = await objectsOf(sqlite);
    expect(expected[10]).toBe('{"text":"c\\n","number":10000030,"none":null,"flag":false}');
    expect(await objectsOf(pg)).toEqual(expected);
  });

  it('renders instants as isoSeconds does, across days, years and leap days', async () => {
    const seconds = [0, 59, 60, 3599, 3600, 86_399, 86_400, 951_782_400, 1_709_164_800, 1_795_000_000, 2_147_483_648, 3_999_999_999];
    for (let s = -86_400 * 3; s < 4_000_000_000; s += 7_919_993) seconds.push(s);
    const values = sql.join(seconds.map((s) => sql`(cast(${s} as bigint))`));
    const { rows } = await sql<{ v: number; iso: string }>`select v, ${dialectOf(pg).isoInstant('v')} as iso from (values ${values}) as x(v)`.execute(pg);
    expect(rows).toHaveLength(seconds.length);
    for (const { v, iso } of rows) expect(iso, String(v)).toBe(isoSeconds(v));
  });

  it('joins a group in the order asked for', async () => {
    const values = sql.join(['b', 'a', 'd', 'c'].map((v, i) => sql`(${v}, ${i})`));
    const concat = dialectOf(pg).orderedConcat(sql.ref('v'), ',', sql`v desc`);
    const { rows } = await sql<{ joined: string }>`select ${concat} as joined from (select * from (values ${values}) as x(v, i) order by v desc) s`.execute(pg);
    expect(rows[0]!.joined).toBe('d,c,b,a');
  });
});
