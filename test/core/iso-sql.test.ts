import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, type Api } from '../../adapters/node/index.ts';
import { isoSql } from '../../core/store/iso-sql.ts';
import { isoSeconds } from '../../core/time/iso.ts';

describe('instants rendered by SQLite', () => {
  let api: Api;
  beforeAll(async () => (api = await createApi({ database: ':memory:' })));
  afterAll(() => api.close());

  it('read exactly as isoSeconds renders the same epoch seconds, across days, years and leap days', async () => {
    const seconds = [0, 59, 60, 3599, 3600, 86_399, 86_400, 951_782_400, 1_709_164_800, 1_795_000_000, 1_795_000_001, 2_147_483_648, 3_999_999_999];
    for (let s = -86_400 * 3; s < 4_000_000_000; s += 7_919_993) seconds.push(s);
    const values = sql.join(seconds.map((s) => sql`(${s})`));
    const { rows } = await sql<{ v: number; iso: string }>`select column1 as v, ${isoSql('column1')} as iso from (values ${values})`.execute(api.db);
    expect(rows).toHaveLength(seconds.length);
    for (const { v, iso } of rows) expect(iso, String(v)).toBe(isoSeconds(v));
  });
});
