import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { WebhookEventKind } from '../resources/types.ts';
import { dialectOf } from './dialect/index.ts';
import { writeTest } from './webhook-outbox.ts';
import type { Db, WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEndpointsTable } from './schema.ts';

/** An endpoint row. */
export type EndpointRow = Selectable<WebhookEndpointsTable>;
/** A delivery row. */
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
/** An attempt row. */
export type AttemptRow = Selectable<WebhookAttemptsTable>;

/** What one attempt came to, as the dispatcher records it. */
export interface AttemptOutcome {
  at: number;
  status: number | null;
  latencyMs: number;
  error: string | null;
  /** The headers the attempt sent. */
  headers: Record<string, string>;
  /** The delivery's state after this attempt. */
  next: { status: 'delivered' | 'failed' } | { status: 'pending'; at: number };
  /** Set when the receiver answered 410: the endpoint is disabled with this reason. */
  disableEndpoint?: string;
}

/**
 * Webhook endpoints and the delivery outbox. Claims are conditional UPDATEs with a lease, in SQL
 * that PostgreSQL runs as well, so several processes on one database can share the sending.
 */
export class WebhooksStore {
  constructor(private readonly db: Db) {}

  /** Adds an endpoint. */
  async insertEndpoint(row: Insertable<WebhookEndpointsTable>): Promise<void> {
    await this.db.insertInto('webhook_endpoints').values(row).execute();
  }

  /** One endpoint by id. */
  async endpoint(id: string): Promise<EndpointRow | undefined> {
    return this.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** An account's endpoints, oldest first. */
  async endpoints(accountId: string): Promise<EndpointRow[]> {
    return this.db.selectFrom('webhook_endpoints').selectAll().where('account_id', '=', accountId).orderBy('created_at').orderBy('id').execute();
  }

  /** Every enabled endpoint: the ones the dispatcher sends to. */
  async enabledEndpoints(): Promise<EndpointRow[]> {
    return this.db.selectFrom('webhook_endpoints').selectAll().where('enabled', '=', 1).orderBy('id').execute();
  }

  /** Changes an endpoint's settings. */
  async updateEndpoint(id: string, set: Omit<Updateable<WebhookEndpointsTable>, 'id' | 'account_id' | 'created_at'>): Promise<void> {
    await this.db.updateTable('webhook_endpoints').set(set).where('id', '=', id).execute();
  }

  /** Removes an endpoint with its deliveries and their attempts. */
  async deleteEndpoint(id: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const ofEndpoint = trx.selectFrom('webhook_deliveries').select('pk').where('endpoint_id', '=', id);
      await trx.deleteFrom('webhook_attempts').where('delivery_pk', 'in', ofEndpoint).execute();
      await trx.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute();
      await trx.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
    });
  }

  /**
   * Claims up to `limit` of an endpoint's deliveries due by `dueBy` (API time) for `lease.owner`
   * until `lease.until` (lease clock): pending, due, and unclaimed or with an expired claim. The
   * UPDATE re-checks the conditions on the row it locks, so two claimers never both get a row.
   */
  async claim(endpointId: string, dueBy: number, lease: { owner: string; now: number; until: number }, limit: number): Promise<DeliveryRow[]> {
    const free = sql<boolean>`(lease_until is null or lease_until <= ${lease.now})`;
    const claimed = await this.db
      // Materialized: selected once. As a plain subquery, Postgres may rerun it for each row the
      // UPDATE visits, and with `skip locked` each rerun skips rows just locked: a claim overran `limit`.
      .with((cte) => cte('due').materialized(), (db) =>
        dialectOf(this.db).skipLocked(
          db
            .selectFrom('webhook_deliveries')
            .select('pk')
            .where('endpoint_id', '=', endpointId)
            .where('status', '=', 'pending')
            .where('next_attempt_at', '<=', dueBy)
            .where(free)
            .orderBy('next_attempt_at')
            .orderBy('pk')
            .limit(limit),
        ),
      )
      .updateTable('webhook_deliveries')
      .set({ lease_owner: lease.owner, lease_until: lease.until })
      .where('pk', 'in', (eb) => eb.selectFrom('due').select('due.pk'))
      .where('status', '=', 'pending')
      .where(free)
      .returningAll()
      .execute();
    return claimed.sort((a, b) => a.next_attempt_at - b.next_attempt_at || a.pk - b.pk);
  }

  /** Gives a claim back untouched (the dispatcher is stopping). */
  async release(pk: number, owner: string): Promise<void> {
    await this.db.updateTable('webhook_deliveries').set({ lease_owner: null, lease_until: null }).where('pk', '=', pk).where('lease_owner', '=', owner).execute();
  }

  /**
   * Records an attempt and the delivery's new state (and a 410's disabling of the endpoint) in one
   * transaction. The state changes only while the claim is still this one's, so a late failure of a
   * stalled claimer cannot requeue a delivery another process sent.
   */
  async recordAttempt(delivery: DeliveryRow, outcome: AttemptOutcome): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      // The endpoint, and its deliveries with it, may have been deleted while the request was out.
      if (!(await trx.selectFrom('webhook_deliveries').select('pk').where('pk', '=', delivery.pk).executeTakeFirst())) return;
      const last = await trx.selectFrom('webhook_attempts').select((eb) => eb.fn.max<number | null>('seq').as('seq')).where('delivery_pk', '=', delivery.pk).executeTakeFirst();
      await trx
        .insertInto('webhook_attempts')
        .values({ delivery_pk: delivery.pk, seq: (last?.seq ?? 0) + 1, at: outcome.at, status: outcome.status, latency_ms: outcome.latencyMs, error: outcome.error, headers: JSON.stringify(outcome.headers) })
        .execute();
      await trx
        .updateTable('webhook_deliveries')
        .set((eb) => ({
          attempts: eb('attempts', '+', 1),
          status: outcome.next.status,
          next_attempt_at: outcome.next.status === 'pending' ? outcome.next.at : eb.ref('next_attempt_at'),
          last_status: outcome.status,
          last_attempt_at: outcome.at,
          lease_owner: null,
          lease_until: null,
        }))
        .where('pk', '=', delivery.pk)
        .where('lease_owner', '=', delivery.lease_owner)
        .execute();
      if (outcome.disableEndpoint) {
        await trx.updateTable('webhook_endpoints').set({ enabled: 0, disabled_reason: outcome.disableEndpoint, updated_at: outcome.at }).where('id', '=', delivery.endpoint_id).execute();
      }
    });
  }

  /**
   * Removes up to `limit` delivered or failed deliveries whose last attempt was before `beforeSeconds`,
   * with their attempts; returns how many went.
   */
  async pruneFinished(beforeSeconds: number, limit: number): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const old = await trx
        .selectFrom('webhook_deliveries')
        .select('pk')
        .where('status', 'in', ['delivered', 'failed'])
        .where('last_attempt_at', '<', beforeSeconds)
        .limit(limit)
        .execute();
      const pks = old.map((r) => r.pk);
      if (pks.length === 0) return 0;
      await trx.deleteFrom('webhook_attempts').where('delivery_pk', 'in', pks).execute();
      await trx.deleteFrom('webhook_deliveries').where('pk', 'in', pks).execute();
      return pks.length;
    });
  }

  /** One delivery by id. */
  async delivery(id: string): Promise<DeliveryRow | undefined> {
    return this.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** A page of an endpoint's deliveries, newest first, before the delivery `beforePk` when given. */
  async deliveries(endpointId: string, options: { status?: DeliveryRow['status']; beforePk?: number; limit: number }): Promise<DeliveryRow[]> {
    let query = this.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId);
    if (options.status) query = query.where('status', '=', options.status);
    if (options.beforePk !== undefined) query = query.where('pk', '<', options.beforePk);
    return query.orderBy('pk', 'desc').limit(options.limit).execute();
  }

  /** The attempts of the given deliveries, in order. */
  async attempts(deliveryPks: number[]): Promise<AttemptRow[]> {
    if (deliveryPks.length === 0) return [];
    return this.db.selectFrom('webhook_attempts').selectAll().where('delivery_pk', 'in', deliveryPks).orderBy('delivery_pk').orderBy('seq').execute();
  }

  /** Writes a test delivery of `kind` to an endpoint of `accountId` (see {@link writeTest}); its id, or undefined when the account has nothing to report. */
  async enqueueTest(endpointId: string, accountId: string, kind: WebhookEventKind, cap: number, nowSeconds: number): Promise<string | undefined> {
    return this.db.transaction().execute((trx) => writeTest(trx, endpointId, accountId, kind, cap, nowSeconds));
  }

  /** Puts a failed delivery back in the queue, due now, with a fresh run of the retry schedule. */
  async requeue(pk: number, nowSeconds: number): Promise<void> {
    await this.db.updateTable('webhook_deliveries').set({ status: 'pending', attempts: 0, next_attempt_at: nowSeconds, lease_owner: null, lease_until: null }).where('pk', '=', pk).execute();
  }
}
