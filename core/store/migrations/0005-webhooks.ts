import type { Kysely, Migration } from 'kysely';
import { dialectOf } from '../dialect/index.ts';

/** Partner webhooks: endpoints, the delivery outbox and each delivery's attempts. */
export const webhooksSchema: Migration = {
  async up(db: Kysely<any>) {
    const t = dialectOf(db).types;
    await db.schema
      .createTable('webhook_endpoints')
      .addColumn('id', t.text, (c) => c.primaryKey())
      .addColumn('account_id', t.text, (c) => c.notNull().references('accounts.id'))
      .addColumn('url', t.text, (c) => c.notNull())
      .addColumn('secret', t.text, (c) => c.notNull())
      // During a rotation's overlap the old secret signs too, until previous_secret_until.
      .addColumn('previous_secret', t.text)
      .addColumn('previous_secret_until', t.int)
      .addColumn('events', t.text, (c) => c.notNull())
      .addColumn('enabled', t.int, (c) => c.notNull().defaultTo(1))
      .addColumn('disabled_reason', t.text)
      .addColumn('created_at', t.int, (c) => c.notNull())
      .addColumn('updated_at', t.int, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('webhook_endpoints_by_account').on('webhook_endpoints').columns(['account_id']).execute();

    // The outbox: one row per delivery, written in the transaction that loaded what it reports.
    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('pk', t.int, (c) => t.rowKey(c, { neverReuse: true }))
      .addColumn('id', t.text, (c) => c.notNull().unique())
      .addColumn('endpoint_id', t.text, (c) => c.notNull())
      .addColumn('event', t.text, (c) => c.notNull())
      .addColumn('domain', t.text, (c) => c.notNull())
      .addColumn('client_ref', t.text)
      .addColumn('data', t.text, (c) => c.notNull())
      .addColumn('status', t.text, (c) => c.notNull())
      .addColumn('attempts', t.int, (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', t.int, (c) => c.notNull())
      .addColumn('lease_owner', t.text)
      .addColumn('lease_until', t.int)
      .addColumn('last_status', t.int)
      .addColumn('last_attempt_at', t.int)
      .addColumn('created_at', t.int, (c) => c.notNull())
      .execute();
    // Claims read an endpoint's due deliveries in order; the log lists an endpoint's newest first.
    await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['endpoint_id', 'status', 'next_attempt_at', 'pk']).execute();
    await db.schema.createIndex('webhook_deliveries_log').on('webhook_deliveries').columns(['endpoint_id', 'pk']).execute();
    // Finished deliveries leave the log after the retention period, oldest first.
    await db.schema.createIndex('webhook_deliveries_finished').on('webhook_deliveries').columns(['status', 'last_attempt_at']).execute();

    await db.schema
      .createTable('webhook_attempts')
      .addColumn('delivery_pk', t.int, (c) => c.notNull())
      .addColumn('seq', t.int, (c) => c.notNull())
      .addColumn('at', t.int, (c) => c.notNull())
      .addColumn('status', t.int)
      .addColumn('latency_ms', t.int, (c) => c.notNull())
      .addColumn('error', t.text)
      .addPrimaryKeyConstraint('webhook_attempts_pk', ['delivery_pk', 'seq'])
      .execute();
  },
};
