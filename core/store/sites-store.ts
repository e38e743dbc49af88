import type { Site } from '../scope/view.ts';
import type { Db } from './schema.ts';

/** Reads and writes client sites. */
export class SitesStore {
  constructor(private readonly db: Db) {}

  /** Every site of an account. */
  async list(accountId: string): Promise<Site[]> {
    const rows = await this.db
      .selectFrom('sites')
      .select(['pk', 'domain', 'client_ref'])
      .where('account_id', '=', accountId)
      .orderBy('domain')
      .execute();
    return rows.map((r) => ({ pk: r.pk, domain: r.domain, clientRef: r.client_ref }));
  }

  /** The site an account registered for exactly this domain. */
  async findByDomain(accountId: string, domain: string): Promise<Site | undefined> {
    const r = await this.db
      .selectFrom('sites')
      .select(['pk', 'domain', 'client_ref'])
      .where('account_id', '=', accountId)
      .where('domain', '=', domain)
      .executeTakeFirst();
    return r && { pk: r.pk, domain: r.domain, clientRef: r.client_ref };
  }

  /** Registers a site unless the account has one for the domain (registered meanwhile by another request, say). */
  async insertIfAbsent(accountId: string, domain: string, clientRef: string | null, nowSeconds: number): Promise<void> {
    await this.db
      .insertInto('sites')
      .values({ account_id: accountId, domain, client_ref: clientRef, created_at: nowSeconds })
      .onConflict((oc) => oc.columns(['account_id', 'domain']).doNothing())
      .execute();
  }
}
