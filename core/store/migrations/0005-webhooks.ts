import type { Kysely, Migration } from 'kysely';

/** Partner webhooks: endpoints, the delivery outbox and each delivery's attempts. */
export const webhooksSchema: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('webhook_endpoints')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('secret', 'text', (c) => c.notNull())
      // During a rotation's overlap the old secret signs too, until previous_secret_until.
      .addColumn('previous_secret', 'text')
      .addColumn('previous_secret_until', 'integer')
      .addColumn('events', 'text', (c) => c.notNull())
      .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('disabled_reason', 'text')
      .addColumn('created_at', 'integer', (c) => c.notNull())
      .addColumn('updated_at', 'integer', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('webhook_endpoints_by_account').on('webhook_endpoints').columns(['account_id']).execute();

    // The outbox: one row per delivery, written in the transaction that loaded what it reports.
    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('pk', 'integer', (c) => c.primaryKey().autoIncrement())
      .addColumn('id', 'text', (c) => c.notNull().unique())
      .addColumn('endpoint_id', 'text', (c) => c.notNull())
      .addColumn('event', 'text', (c) => c.notNull())
      .addColumn('domain', 'text', (c) => c.notNull())
      .addColumn('client_ref', 'text')
      .addColumn('data', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'integer', (c) => c.notNull())
      .addColumn('lease_owner', 'text')
      .addColumn('lease_until', 'integer')
      .addColumn('last_status', 'integer')
      .addColumn('last_attempt_at', 'integer')
      .addColumn('created_at', 'integer', (c) => c.notNull())
      .execute();
    // Claims read an endpoint's due deliveries in order; the log lists an endpoint's newest first.
    await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['endpoint_id', 'status', 'next_attempt_at', 'pk']).execute();
    await db.schema.createIndex('webhook_deliveries_log').on('webhook_deliveries').columns(['endpoint_id', 'pk']).execute();
    // Finished deliveries leave the log after the retention period, oldest first.
    await db.schema.createIndex('webhook_deliveries_finished').on('webhook_deliveries').columns(['status', 'last_attempt_at']).execute();

    await db.schema
      .createTable('webhook_attempts')
      .addColumn('delivery_pk', 'integer', (c) => c.notNull())
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('at', 'integer', (c) => c.notNull())
      .addColumn('status', 'integer')
      .addColumn('latency_ms', 'integer', (c) => c.notNull())
      .addColumn('error', 'text')
      .addPrimaryKeyConstraint('webhook_attempts_pk', ['delivery_pk', 'seq'])
      .execute();
  },
};
