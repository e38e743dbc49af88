import type { Transaction } from 'kysely';
import type { Database } from './schema.ts';

/**
 * People and companies counted by the exact set of sites they were seen on, so a view's total is a
 * sum over the account's few distinct sets rather than a distinct count over visits. Loading keeps
 * the counts in its transaction ({@link refreshSiteSets}).
 */

/** Whose sets: people (from person_sites) or companies (from company_sites, their people's). */
export type SiteSetKind = 'person' | 'company';

/** Rows per multi-row statement. */
const CHUNK = 400;

/**
 * The stored form of a set of site keys: each between commas, ascending (`,3,7,`), so a view's
 * site is found with `like '%,3,%'`; `''` for no site (a company none of whose people visited).
 */
export function siteSetKey(sitePks: number[]): string {
  return sitePks.length === 0 ? '' : `,${[...sitePks].sort((a, b) => a - b).join(',')},`;
}

/** The `like` pattern that finds a site in a stored set. */
export function siteSetPattern(sitePk: number): string {
  return `%,${sitePk},%`;
}

/**
 * Brings the counts of the given people or companies (of one account) up to date with their
 * visits as they stand now in the transaction: call it after their person_sites or company_sites
 * rows were rewritten, and for companies just loaded (they count under the empty set).
 */
export async function refreshSiteSets(trx: Transaction<Database>, accountId: string, kind: SiteSetKind, ownerPks: readonly number[]): Promise<void> {
  const owners = [...new Set(ownerPks)].sort((a, b) => a - b);
  const delta = new Map<string, number>();
  const changed: { kind: SiteSetKind; owner_pk: number; sites: string }[] = [];
  for (let i = 0; i < owners.length; i += CHUNK) {
    const chunk = owners.slice(i, i + CHUNK);
    const stored = new Map((await trx.selectFrom('site_set_owners').select(['owner_pk', 'sites']).where('kind', '=', kind).where('owner_pk', 'in', chunk).execute()).map((r) => [r.owner_pk, r.sites]));
    const visits = kind === 'person'
      ? trx.selectFrom('person_sites').select(['person_pk as owner', 'site_pk']).where('person_pk', 'in', chunk)
      : trx.selectFrom('company_sites').select(['company_pk as owner', 'site_pk']).where('company_pk', 'in', chunk);
    const sites = new Map<number, number[]>();
    for (const { owner, site_pk } of await visits.execute()) (sites.get(owner) ?? sites.set(owner, []).get(owner)!).push(site_pk);
    for (const owner of chunk) {
      const now = siteSetKey(sites.get(owner) ?? []);
      const before = stored.get(owner);
      if (before === now) continue;
      if (before !== undefined) delta.set(before, (delta.get(before) ?? 0) - 1);
      delta.set(now, (delta.get(now) ?? 0) + 1);
      changed.push({ kind, owner_pk: owner, sites: now });
    }
  }
  for (let i = 0; i < changed.length; i += CHUNK) {
    await trx
      .insertInto('site_set_owners')
      .values(changed.slice(i, i + CHUNK))
      .onConflict((oc) => oc.columns(['kind', 'owner_pk']).doUpdateSet((eb) => ({ sites: eb.ref('excluded.sites') })))
      .execute();
  }
  // In key order, so loads changing the same sets at once on Postgres lock them in the same order.
  const rows = [...delta].filter(([, n]) => n !== 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([sites, members]) => ({ account_id: accountId, kind, sites, members }));
  for (let i = 0; i < rows.length; i += CHUNK) {
    await trx
      .insertInto('site_sets')
      .values(rows.slice(i, i + CHUNK))
      .onConflict((oc) => oc.columns(['account_id', 'kind', 'sites']).doUpdateSet((eb) => ({ members: eb('site_sets.members', '+', eb.ref('excluded.members')) })))
      .execute();
  }
  // A set nobody has any more is dropped, so what stats sum stays the sets that exist.
  const emptied = rows.filter((r) => r.members < 0).map((r) => r.sites);
  for (let i = 0; i < emptied.length; i += CHUNK) {
    await trx.deleteFrom('site_sets').where('account_id', '=', accountId).where('kind', '=', kind).where('sites', 'in', emptied.slice(i, i + CHUNK)).where('members', '=', 0).execute();
  }
}
