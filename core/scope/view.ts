import { domainMatches } from './domain.ts';

/** A client site as the core sees it. */
export interface Site {
  pk: number;
  domain: string;
  clientRef: string | null;
}

/** Who is asking: the account, the key, and for a domain-scoped key the site it was issued for. */
export interface Caller {
  accountId: string;
  keyPk: number;
  scopeSite: Site | null;
  /**
   * Every site of the account, ordered by domain, when the key's lookup brought them (always for a
   * domain-scoped key; for an account key when the request names a site filter): read in the same
   * statement as the key, so as fresh as a separate listing, one round trip fewer.
   */
  accountSites?: Site[];
}

/** The client filters a read endpoint accepts. */
export interface SiteFilters {
  domain?: string;
  clientRef?: string;
}

/**
 * What a request may read after the scope ceiling and the client filters are applied:
 * - `account`: the whole account, with account-wide figures;
 * - `sites`: an account key narrowed to some sites; figures stay account-wide;
 * - `scoped`: a domain-scoped key, after any narrowing: rows and figures come only from these sites
 *   (the key's site and its subdomains' sites, as the `domain` filter would select them);
 * - `empty`: nothing can match, so no query is needed.
 */
export type View =
  | { kind: 'account'; accountId: string }
  | { kind: 'sites'; accountId: string; sites: Site[] }
  | { kind: 'scoped'; accountId: string; sites: Site[] }
  | { kind: 'empty'; accountId: string };

/**
 * Applies the caller's ceiling, then the filters; `loadSites` lists the account's sites when a
 * scope or filters need them and the caller does not carry them already.
 */
export async function resolveView(
  caller: Caller,
  filters: SiteFilters,
  loadSites: (accountId: string) => Promise<Site[]>,
): Promise<View> {
  const { accountId, scopeSite, accountSites } = caller;
  const sitesOf = accountSites ? async () => accountSites : loadSites;
  const filtered = filters.domain !== undefined || filters.clientRef !== undefined;
  if (scopeSite) {
    // The scope is the `domain` filter applied with the key's domain, and a ceiling: the client
    // filters then narrow that set, possibly to nothing, but never widen it.
    const ceiling = (await sitesOf(accountId)).filter((site) => site.pk === scopeSite.pk || domainMatches(site.domain, scopeSite.domain));
    const sites = ceiling.filter((site) => siteMatches(site, filters));
    return sites.length > 0 ? { kind: 'scoped', accountId, sites } : { kind: 'empty', accountId };
  }
  if (!filtered) return { kind: 'account', accountId };
  const sites = (await sitesOf(accountId)).filter((site) => siteMatches(site, filters));
  return sites.length > 0 ? { kind: 'sites', accountId, sites } : { kind: 'empty', accountId };
}

function siteMatches(site: Site, filters: SiteFilters): boolean {
  if (filters.domain !== undefined && !domainMatches(site.domain, filters.domain)) return false;
  if (filters.clientRef !== undefined && site.clientRef !== filters.clientRef) return false;
  return true;
}

/** A stable text naming the caller's scope, for binding cursors to it. */
export function scopeTag(caller: Caller): string {
  return caller.scopeSite ? `${caller.accountId}/site:${caller.scopeSite.pk}` : `${caller.accountId}/account`;
}
