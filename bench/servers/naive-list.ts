/**
 * The naive floor of a people page for the bare servers of every runtime: `/v1/people` (pages of
 * 100, `cursor` to go on) for the benchmark database's account, as bench/suites/list-pages.ts
 * renders it (the core's keyset SQL, rows → objects → one JSON.stringify), with no key, no limits,
 * no signed cursor and no validation.
 */
import { EMPTY_PAGE, planPage, renderPage, type Row, type SiteRow } from '../suites/list-pages.ts';
import type { NaiveStatement, Prepare } from './naive-page.ts';

/** Prepares what it can once; each call then serves one people page from its query string. */
export function naivePeople(prepare: Prepare): (search: URLSearchParams) => string {
  // The benchmark database holds one account: the one every key of the suites belongs to.
  const [account] = prepare('SELECT id FROM accounts ORDER BY id LIMIT 1').all() as { id: string }[];
  if (!account) throw new Error('the benchmark database has no account');
  const sites = prepare('SELECT pk, domain, client_ref FROM sites WHERE account_id = ?');
  const statements = new Map<string, NaiveStatement>();
  return (search) => {
    const cursor = search.get('cursor');
    const after = cursor === null ? undefined : (JSON.parse(atob(cursor.replace(/-/g, '+').replace(/_/g, '/'))) as [number, string]);
    const plan = planPage({ list: 'people', after }, sites.all(account.id) as SiteRow[], account.id);
    if (!plan) return EMPTY_PAGE();
    let statement = statements.get(plan.sql);
    if (!statement) statements.set(plan.sql, (statement = prepare(plan.sql)));
    return renderPage(plan, statement.all(...plan.params) as Row[]);
  };
}
