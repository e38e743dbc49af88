import type { Migration } from 'kysely';

/**
 * Stored `people_whole`'s JSON as Latin-1 bytes. Migration 0020 drops that table, so this now
 * leaves it as it is.
 */
export const peopleWholeBytes: Migration = {
  async up() {},
};
