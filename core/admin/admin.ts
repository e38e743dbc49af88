import { generateKey, hashKey, isWellFormedKey, keyLookup, toHex } from '../auth/api-key.ts';
import type { Digests } from '../crypto/digests.ts';
import { normalizeDomain } from '../scope/domain.ts';
import type { Site } from '../scope/view.ts';
import type { IngestStore, LoadProgress } from '../store/ingest-store.ts';
import type { KeyInfo, KeysStore, NewKey } from '../store/keys-store.ts';
import type { Db } from '../store/schema.ts';
import type { SitesStore } from '../store/sites-store.ts';
import type { Clock } from '../time/clock.ts';
import { toEpochSeconds } from '../time/iso.ts';
import type { WebhookAdmin } from '../webhooks/webhook-admin.ts';
import { AdminError, requireText, type CompanyInput, type EventInput, type PersonInput } from './inputs.ts';

/** A key as issued: the only time its value is ever returned. */
export interface IssuedKey {
  keyId: string;
  /** The key itself. Store it now: only its hash is kept. */
  key: string;
  accountId: string;
  /** The site a domain-scoped key reads; null for an account key. */
  domain: string | null;
  clientRef: string | null;
}

/** A client site as the admin surface describes it. */
export interface SiteInfo {
  domain: string;
  clientRef: string | null;
}

/** Options for issuing a key. */
export interface IssueKeyOptions {
  label?: string;
  /** Import an existing key value instead of generating one (it must have the key format). */
  value?: string;
}

/** Options of a load. */
export interface LoadOptions {
  /** Told, as the load goes, how many of its items are written so far (a progress bar's feed). */
  onProgress?: LoadProgress;
}

/** Sets up accounts, client sites, keys and data without HTTP: what a dashboard would do. */
export class Admin {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly sites: SitesStore,
    private readonly keys: KeysStore,
    private readonly ingest: IngestStore,
    private readonly digests: Digests,
    /** Webhook endpoints, their secrets and their delivery log. */
    readonly webhooks: WebhookAdmin,
    /** Told after a load wrote webhook deliveries, so they go out at once. */
    private readonly onLoaded: () => void = () => undefined,
  ) {}

  /**
   * Creates a partner account; with an `id` that exists under the same name, returns that account
   * instead, so setup code can run at every start. The same id under another name is an AdminError.
   */
  async createAccount(input: { id?: string; name: string }): Promise<{ id: string; name: string }> {
    const id = input.id ?? `acc_${toHex(crypto.getRandomValues(new Uint8Array(8)))}`;
    requireText(id, 'id', 128);
    const name = requireText(input.name, 'name');
    // Insert unless present, then compare: two requests creating one account at once both see it created.
    await this.db.insertInto('accounts').values({ id, name, created_at: this.#now() }).onConflict((oc) => oc.column('id').doNothing()).execute();
    const stored = await this.db.selectFrom('accounts').select('name').where('id', '=', id).executeTakeFirstOrThrow();
    if (stored.name !== name) throw new AdminError(`account ${id} already exists with another name (${stored.name})`);
    return { id, name };
  }

  /** Whether an account exists. */
  async hasAccount(accountId: string): Promise<boolean> {
    return (await this.db.selectFrom('accounts').select('id').where('id', '=', accountId).executeTakeFirst()) !== undefined;
  }

  /** Every account, by id. */
  async listAccounts(): Promise<{ id: string; name: string }[]> {
    return this.db.selectFrom('accounts').select(['id', 'name']).orderBy('id').execute();
  }

  /**
   * Registers a client site: a tracked domain with the partner's optional label. A site already
   * registered with the same clientRef is returned as it is (setup can run twice); with another
   * clientRef it is an AdminError.
   */
  async registerSite(accountId: string, input: { domain: string; clientRef?: string | null }): Promise<SiteInfo> {
    await this.#requireAccount(accountId);
    const domain = normalizeDomain(String(input.domain));
    if (!domain) throw new AdminError(`domain ${input.domain} is not a hostname`);
    const clientRef = input.clientRef == null ? null : requireText(input.clientRef, 'clientRef', 128);
    // Insert unless present, then compare, as for accounts.
    await this.sites.insertIfAbsent(accountId, domain, clientRef, this.#now());
    const site = (await this.sites.findByDomain(accountId, domain))!;
    if (site.clientRef !== clientRef) throw new AdminError(`site ${domain} is already registered with clientRef ${site.clientRef ?? 'null'}`);
    return { domain: site.domain, clientRef };
  }

  /** The account's client sites. */
  async listSites(accountId: string): Promise<SiteInfo[]> {
    return (await this.sites.list(accountId)).map((s) => ({ domain: s.domain, clientRef: s.clientRef }));
  }

  /** Issues a key that reads the whole account. */
  async issueAccountKey(accountId: string, options: IssueKeyOptions = {}): Promise<IssuedKey> {
    await this.#requireAccount(accountId);
    return this.#issue(accountId, null, options);
  }

  /** Issues the key of one client domain; a domain has one active key at a time (rotate to replace it). */
  async issueScopedKey(accountId: string, domain: string, options: IssueKeyOptions = {}): Promise<IssuedKey> {
    const site = await this.#requireSite(accountId, domain);
    if (await this.keys.hasActiveKeyForSite(site.pk)) throw siteHasKey(site);
    return this.#issue(accountId, site, options);
  }

  /** Issues a new key with the same reach and stops the old one at once (one transaction: never both active, never neither). */
  async rotateKey(keyId: string): Promise<IssuedKey> {
    const old = await this.#requireActiveKey(keyId);
    const site = old.sitePk === null ? null : { pk: old.sitePk, domain: old.domain!, clientRef: old.clientRef };
    const fresh = await this.#newKey(old.accountId, site, { label: old.label ?? undefined });
    const outcome = await this.keys.replace(keyId, fresh.row);
    // Another request revoked or rotated it after the check above.
    if (outcome === 'not_active') throw new AdminError(`key ${keyId} is already revoked`);
    if (outcome === 'conflict') throw new AdminError('that key value is already in use');
    return fresh.issued;
  }

  /** Removes a key's API access; the site's tracking and data are untouched. */
  async revokeKey(keyId: string): Promise<void> {
    await this.#requireActiveKey(keyId);
    await this.keys.revoke(keyId, this.#now());
  }

  /** What an active key reads, or null when the value is unknown, revoked or rotated away. */
  async describeKey(key: string): Promise<KeyInfo | null> {
    if (!isWellFormedKey(key)) return null;
    const hash = await hashKey(key, this.digests);
    const match = (await this.keys.findByLookup(keyLookup(key))).find((k) => k.hash === hash && k.revokedAt === null);
    return match ? ((await this.keys.info(match.id)) ?? null) : null;
  }

  /** Every key of an account, without values. */
  async listKeys(accountId: string): Promise<KeyInfo[]> {
    return this.keys.list(accountId);
  }

  /** Loads companies (inserted, or replaced by id). */
  async loadCompanies(accountId: string, companies: CompanyInput[], options: LoadOptions = {}): Promise<number> {
    await this.#requireAccount(accountId);
    return this.ingest.loadCompanies(accountId, companies, this.#now(), options.onProgress);
  }

  /** Loads people (inserted, or replaced by id) with their visits per client site. */
  async loadPeople(accountId: string, people: PersonInput[], options: LoadOptions = {}): Promise<number> {
    await this.#requireAccount(accountId);
    const loaded = await this.ingest.loadPeople(accountId, people, await this.sites.list(accountId), this.#now(), options.onProgress);
    this.onLoaded();
    return loaded;
  }

  /** Loads events; returns how many were new (an eventId already loaded is skipped). */
  async loadEvents(accountId: string, events: EventInput[], options: LoadOptions = {}): Promise<number> {
    await this.#requireAccount(accountId);
    const loaded = await this.ingest.loadEvents(accountId, events, await this.sites.list(accountId), this.#now(), options.onProgress);
    this.onLoaded();
    return loaded;
  }

  async #issue(accountId: string, site: Site | null, options: IssueKeyOptions): Promise<IssuedKey> {
    const { row, issued } = await this.#newKey(accountId, site, options);
    if (await this.keys.insert(row)) return issued;
    // Refused by the database: another request issued a key for the site, or this value, after the checks.
    if (site && (await this.keys.hasActiveKeyForSite(site.pk))) throw siteHasKey(site);
    throw new AdminError('that key value is already in use');
  }

  /** A new key's value (generated or given, checked) and the row that stores it. */
  async #newKey(accountId: string, site: Site | null, options: IssueKeyOptions): Promise<{ row: NewKey; issued: IssuedKey }> {
    const key = options.value ?? generateKey();
    if (!isWellFormedKey(key)) throw new AdminError('key value must be vi_live_ followed by 40 lowercase hex characters');
    const hash = await hashKey(key, this.digests);
    const clash = (await this.keys.findByLookup(keyLookup(key))).some((k) => k.hash === hash);
    if (clash) throw new AdminError('that key value is already in use');
    const keyId = `key_${toHex(crypto.getRandomValues(new Uint8Array(8)))}`;
    const row: NewKey = { id: keyId, accountId, sitePk: site?.pk ?? null, lookup: keyLookup(key), hash, label: options.label ?? null, nowSeconds: this.#now() };
    return { row, issued: { keyId, key, accountId, domain: site?.domain ?? null, clientRef: site?.clientRef ?? null } };
  }

  async #requireAccount(accountId: string): Promise<void> {
    if (!(await this.hasAccount(accountId))) throw new AdminError(`no account ${accountId}`);
  }

  async #requireSite(accountId: string, domain: string): Promise<Site> {
    await this.#requireAccount(accountId);
    const normalized = normalizeDomain(String(domain));
    const site = normalized ? await this.sites.findByDomain(accountId, normalized) : undefined;
    if (!site) throw new AdminError(`site ${domain} is not registered in account ${accountId}`);
    return site;
  }

  async #requireActiveKey(keyId: string) {
    const info = await this.keys.info(keyId);
    if (!info) throw new AdminError(`no key ${keyId}`);
    if (info.revokedAt !== null) throw new AdminError(`key ${keyId} is already revoked`);
    return info;
  }

  #now(): number {
    return toEpochSeconds(this.clock.now());
  }
}

/** The refusal of a second active key for a site, whether a check or the database found it. */
function siteHasKey(site: Site): AdminError {
  return new AdminError(`site ${site.domain} already has an active key: rotate or revoke it`);
}
