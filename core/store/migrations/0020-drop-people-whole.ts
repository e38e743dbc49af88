import type { Kysely, Migration } from 'kysely';

/**
 * Drops `people_whole` (migration 0017): every people page now joins each person's stored pieces
 * (person-row.ts) on both backends, so no second copy of a person is kept in page order.
 */
export const dropPeopleWhole: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.dropTable('people_whole').execute();
  },
};
