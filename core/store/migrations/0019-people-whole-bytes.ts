import { sql, type Kysely, type Migration } from 'kysely';
import { dialectOf } from '../dialect/index.ts';
import { asciiAsBytes, storeWholeAsBytes } from '../whole-people.ts';

/**
 * Stores each person's whole JSON in `people_whole` as bytes a page of them is read from by a
 * copy (Latin-1, or UTF-8 between NULs beyond it: whole-people.ts) instead of UTF-8 text. The
 * column keeps its declared type: SQLite stores a blob in a text column as it is.
 */
export const peopleWholeBytes: Migration = {
  async up(db: Kysely<any>) {
    if (!dialectOf(db).storesWholePeople) return;
    await sql`update people_whole set json = ${asciiAsBytes(sql.ref('json'))} where typeof(json) = 'text'`.execute(db);
    await storeWholeAsBytes(db, sql<boolean>`1 = 1`);
  },
};
