import type { Kysely, Migration } from 'kysely';
import { dialectOf } from '../dialect/index.ts';

/**
 * The delivery log keeps what each attempt sent besides its body (which its time alone fixes):
 * the headers, signatures included, so the inbox can show them and check them after a rotation.
 * A delivery also says whether an admin asked for it as a test.
 */
export const webhookAttemptHeaders: Migration = {
  async up(db: Kysely<any>) {
    const t = dialectOf(db).types;
    // JSON text of the headers as sent; null for attempts logged before this migration.
    await db.schema.alterTable('webhook_attempts').addColumn('headers', t.text).execute();
    await db.schema.alterTable('webhook_deliveries').addColumn('test', t.int, (c) => c.notNull().defaultTo(0)).execute();
  },
};
