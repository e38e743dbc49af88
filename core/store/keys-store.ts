import type { Site } from '../scope/view.ts';
import { CompiledQueries } from './compiled-queries.ts';
import type { Db } from './schema.ts';

/** A stored key with what authentication needs to know about it. */
export interface KeyRecord {
  pk: number;
  id: string;
  accountId: string;
  hash: string;
  revokedAt: number | null;
  site: Site | null;
  /** Every site of the key's account, ordered by domain, when the lookup was asked to bring them; else null. */
  accountSites: Site[] | null;
}

/** The public description of a key: never its value or hash. */
export interface KeyInfo {
  keyId: string;
  accountId: string;
  domain: string | null;
  clientRef: string | null;
  label: string | null;
  createdAt: number;
  revokedAt: number | null;
}

/** A key to store: its hash and lookup prefix, never its value. */
export interface NewKey {
  id: string;
  accountId: string;
  sitePk: number | null;
  lookup: string;
  hash: string;
  label: string | null;
  nowSeconds: number;
}

/** Inserts a key unless a unique index refuses it; whether it was stored. */
async function insertKey(db: Db, row: NewKey): Promise<boolean> {
  const stored = await db
    .insertInto('api_keys')
    .values({
      id: row.id,
      account_id: row.accountId,
      site_pk: row.sitePk,
      lookup: row.lookup,
      hash: row.hash,
      label: row.label,
      created_at: row.nowSeconds,
    })
    .onConflict((oc) => oc.doNothing())
    .returning('pk')
    .executeTakeFirst();
  return stored !== undefined;
}

/** Revokes a key unless it already is; whether this call revoked it. */
async function revokeKey(db: Db, keyId: string, nowSeconds: number, replacedBy: string | null): Promise<boolean> {
  const revoked = await db
    .updateTable('api_keys')
    .set({ revoked_at: nowSeconds, replaced_by: replacedBy })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(revoked.numUpdatedRows) > 0;
}

/** Reads and writes API keys, which are stored only as hashes. */
export class KeysStore {
  readonly #queries: CompiledQueries;

  constructor(private readonly db: Db) {
    this.#queries = new CompiledQueries(db);
  }

  /**
   * Candidate keys whose lookup prefix matches; the caller compares hashes in constant time. A
   * domain-scoped key always brings its account's sites, and any key does with `withSites`: a
   * request that will narrow its view by site then needs no second round trip to list them.
   */
  async findByLookup(lookup: string, withSites = false): Promise<KeyRecord[]> {
    const rows = await this.#queries.rows(
      withSites ? 'by-lookup-with-sites' : 'by-lookup',
      (p) =>
        this.db
          .selectFrom('api_keys as k')
          .leftJoin('sites as s', 's.pk', 'k.site_pk')
          // One row per site of the account (or one row with nulls): keys are few per lookup prefix, sites few per account.
          .leftJoin('sites as a', (join) => {
            const sameAccount = join.onRef('a.account_id', '=', 'k.account_id');
            return withSites ? sameAccount : sameAccount.on('k.site_pk', 'is not', null);
          })
          .select(['k.pk', 'k.id', 'k.account_id', 'k.hash', 'k.revoked_at', 's.pk as site_pk', 's.domain', 's.client_ref'])
          .select(['a.pk as a_pk', 'a.domain as a_domain', 'a.client_ref as a_client_ref'])
          .where('k.lookup', '=', p('lookup'))
          .orderBy('k.pk')
          .orderBy('a.domain'),
      { lookup },
    );
    const keys = new Map<number, KeyRecord>();
    for (const r of rows) {
      let key = keys.get(r.pk);
      if (!key) {
        const site = r.site_pk === null ? null : { pk: r.site_pk, domain: r.domain!, clientRef: r.client_ref };
        key = { pk: r.pk, id: r.id, accountId: r.account_id, hash: r.hash, revokedAt: r.revoked_at, site, accountSites: null };
        if (withSites || site) key.accountSites = [];
        keys.set(r.pk, key);
      }
      if (r.a_pk !== null) key.accountSites!.push({ pk: r.a_pk, domain: r.a_domain!, clientRef: r.a_client_ref });
    }
    return [...keys.values()];
  }

  /**
   * Stores a new key's hash; false when the database refuses it because its site already has an
   * active key or an active key has its value (unique indexes, so two requests at once cannot both
   * pass a check made before).
   */
  async insert(row: NewKey): Promise<boolean> {
    return insertKey(this.db, row);
  }

  /**
   * Revokes an active key and stores its successor in one transaction: `not_active` when the key
   * was revoked meanwhile (nothing changes), `conflict` when the successor was refused (nor then).
   */
  async replace(oldKeyId: string, row: NewKey): Promise<'replaced' | 'not_active' | 'conflict'> {
    const refused = new Error('successor refused');
    try {
      return await this.db.transaction().execute(async (trx) => {
        if (!(await revokeKey(trx, oldKeyId, row.nowSeconds, row.id))) return 'not_active';
        if (!(await insertKey(trx, row))) throw refused;
        return 'replaced';
      });
    } catch (error) {
      if (error === refused) return 'conflict';
      throw error;
    }
  }

  /** A key's description by its id. */
  async info(keyId: string): Promise<(KeyInfo & { sitePk: number | null }) | undefined> {
    const r = await this.db
      .selectFrom('api_keys as k')
      .leftJoin('sites as s', 's.pk', 'k.site_pk')
      .select(['k.id', 'k.account_id', 'k.site_pk', 'k.label', 'k.created_at', 'k.revoked_at', 's.domain', 's.client_ref'])
      .where('k.id', '=', keyId)
      .executeTakeFirst();
    return r && toInfo(r);
  }

  /** Every key of an account, newest first. */
  async list(accountId: string): Promise<KeyInfo[]> {
    const rows = await this.db
      .selectFrom('api_keys as k')
      .leftJoin('sites as s', 's.pk', 'k.site_pk')
      .select(['k.id', 'k.account_id', 'k.site_pk', 'k.label', 'k.created_at', 'k.revoked_at', 's.domain', 's.client_ref'])
      .where('k.account_id', '=', accountId)
      .orderBy('k.pk', 'desc')
      .execute();
    return rows.map(toInfo);
  }

  /** Whether a site already has a key that is not revoked. */
  async hasActiveKeyForSite(sitePk: number): Promise<boolean> {
    const r = await this.db
      .selectFrom('api_keys')
      .select('pk')
      .where('site_pk', '=', sitePk)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return r !== undefined;
  }

  /** Marks a key revoked (a rotation revokes through {@link replace}, which names the successor). */
  async revoke(keyId: string, nowSeconds: number): Promise<void> {
    await revokeKey(this.db, keyId, nowSeconds, null);
  }
}

function toInfo(r: {
  id: string;
  account_id: string;
  site_pk: number | null;
  label: string | null;
  created_at: number;
  revoked_at: number | null;
  domain: string | null;
  client_ref: string | null;
}): KeyInfo & { sitePk: number | null } {
  return {
    keyId: r.id,
    accountId: r.account_id,
    sitePk: r.site_pk,
    domain: r.domain,
    clientRef: r.client_ref,
    label: r.label,
    createdAt: r.created_at,
    revokedAt: r.revoked_at,
  };
}
