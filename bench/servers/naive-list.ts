/**
 * The naive floor of a people page for the bare servers of every runtime: `/v1/people` (pages of
 * 100, `cursor` to go on) for the benchmark database's account, as bench/suites/list-pages.ts
 * renders it (the core's keyset SQL, rows → objects → one JSON.stringify), with no key, no limits,
 * no signed cursor and no validation.
 */
import { decodeCursor, listPages, type SiteRow } from '../suites/list-pages.ts';
import type { Prepare } from './naive-page.ts';

/** Prepares what it can once; each call then serves one people page of the account from its query string. */
export function naivePeople(prepare: Prepare, account: string): (search: URLSearchParams) => string {
  const sites = prepare('SELECT pk, domain, client_ref FROM sites WHERE account_id = ?');
  const pages = listPages(prepare);
  return (search) => {
    const cursor = search.get('cursor');
    return pages({ list: 'people', after: cursor === null ? undefined : decodeCursor(cursor) }, sites.all(account) as SiteRow[], account);
  };
}
