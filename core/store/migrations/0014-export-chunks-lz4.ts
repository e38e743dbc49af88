import type { Kysely, Migration } from 'kysely';
import { dialectOf } from '../dialect/index.ts';

/**
 * Export files' chunks (up to ~180 K characters each on Postgres) are compressed with LZ4 where it has it. With
 * pglz, its default, storing the chunks took a sixth of an export of 100,000 people (250 inserts,
 * 606 ms of 3.5 s); LZ4 wrote the same chunks ~4.4× faster to the same size (38 MB of CSV in
 * 113 against 501 ms, both 16.5 MB stored). Chunks stored before keep pglz; both read back alike.
 */
export const exportChunksLz4: Migration = {
  async up(db: Kysely<any>) {
    await dialectOf(db).fastCompression(db, 'export_chunks', 'data');
  },
};
