import type { PersonInput } from '../../adapters/node/index.ts';
import type { Client } from './targets.ts';

/** Where a people or companies row sits in its list: lastSeen (epoch seconds), then id. */
export interface ListPosition {
  lastSeen: number;
  id: string;
}

/** The position of a row as a page returned it. */
export const positionOf = (row: { lastSeen: string; id: string }): ListPosition => ({ lastSeen: Date.parse(row.lastSeen) / 1000, id: row.id });

/** Whether `row` comes after `position` in lastSeen-descending-then-id-descending order (the keyset rule). */
export function isAfter(row: { lastSeen: string; id: string }, position: ListPosition): boolean {
  const p = positionOf(row);
  return p.lastSeen < position.lastSeen || (p.lastSeen === position.lastSeen && p.id < position.id);
}

/**
 * Follows a walk from `cursor` (a previous page's nextCursor) to its end with `key`, returning
 * its rows. Fails on any answer but 200, and on a walk that does not end, so a loop shows up as
 * a failure rather than a hung test.
 */
export async function walkFrom<T = any>(client: Client, path: string, key: string, cursor: string | undefined, limit: number): Promise<T[]> {
  const rows: T[] = [];
  for (let pages = 0; cursor; pages++) {
    if (pages > 1_000) throw new Error(`the walk of ${path} does not end`);
    const sep = path.includes('?') ? '&' : '?';
    const reply = await client.get(`${path}${sep}limit=${limit}&cursor=${encodeURIComponent(cursor)}`, key);
    if (reply.status !== 200) throw new Error(`${path} from a cursor answered ${reply.status}: ${JSON.stringify(reply.body)}`);
    rows.push(...reply.body.data);
    cursor = reply.body.pagination.nextCursor;
  }
  return rows;
}

/**
 * The person as the admin surface would reload them after one more visit to `domain` at `at`:
 * that site's visitCount grows by one and its lastSeen becomes `at` (a first visit to a site
 * not seen before starts there). Everything else is as loaded.
 */
export function withNewVisit(person: PersonInput, domain: string, at: number): PersonInput {
  const iso = new Date(at).toISOString();
  const known = person.visits.some((v) => v.domain === domain);
  const visits = known
    ? person.visits.map((v) => (v.domain === domain ? { ...v, visitCount: v.visitCount + 1, lastSeen: iso } : v))
    : [...person.visits, { domain, visitCount: 1, firstSeen: iso, lastSeen: iso }];
  return { ...person, visits };
}
