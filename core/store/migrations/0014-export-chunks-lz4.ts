import type { Kysely, Migration } from 'kysely';
import { dialectOf } from '../dialect/index.ts';

/**
 * Export chunks are compressed with LZ4 where Postgres has it: much faster to write than pglz,
 * at the same size. Chunks stored before keep pglz; both read back alike.
 */
export const exportChunksLz4: Migration = {
  async up(db: Kysely<any>) {
    await dialectOf(db).fastCompression(db, 'export_chunks', 'data');
  },
};
