/**
 * What the summary says when a people-paging target is missed: the figures of this run that
 * explain it, and what a CPU profile of `api.fetch` people pages showed (kept beside the figures it explains).
 */
import type { CaseResult } from '../results.ts';

const ms = (c: CaseResult | number) => `${(typeof c === 'number' ? c : c.medianMs!).toFixed(3)} ms`;
const ratio = (a: CaseResult, b: CaseResult) => `${(a.medianMs! / b.medianMs!).toFixed(2)}×`;

/**
 * The profile behind the notes, on the default data (2,000 people; 2026-11-24, 2-core machine
 * shared with other sessions): the V8 sampling profiler over 5,000 api.fetch pages of 100 people,
 * account key, no filter, request loop only.
 */
const PROFILE =
  'Each person is stored as JSON text in pieces (head, figures, tail, attribution) as the data is loaded, and a page concatenates them in SQL (core/store/person-row.ts), as a journey page joins its stored events. ' +
  'A CPU profile of api.fetch people pages (account key, no filter) splits one as: SQLite running its statements (key lookup, rate-limit count, sites, the page) ~30%, the page statement itself ~0.17 ms; ' +
  'turning the ~92 KB body into UTF-8 and back into text ~19% (a people page is twice the bytes of an events page: 927 against 451 bytes an item); GC ~10%; the rest the Request/Response objects, auth, limits and the signed cursor.';

/** Why an account key's `domain`/`client_ref` page costs more than the unfiltered one. */
const SITE_FILTER =
  'An account key filtered to some sites walks all people by lastSeen and keeps those seen on the selected sites (an index probe each), so it reads past everybody seen elsewhere; ' +
  'each kept person is attributed to the latest of the selected sites by a second probe. The floor walks the same rows.';

/** Why a scoped key over several sites costs more than one site's key. */
const SEVERAL_SITES =
  "A scoped key over several sites merges one index range per site and sums each person's visits over them at query time (two probes a person), then writes the figures between the stored head and tail; " +
  'the floor groups every visit in scope first.';

/** Note for a people page's floor target; `severalSites` when its key is scoped to more than one site. */
export function peopleFloorNote(ours: CaseResult, floor: CaseResult, events: CaseResult, severalSites: boolean): string {
  const filter = String(ours.params?.filter ?? '');
  const why = /^(domain|client_ref)=/.test(filter) ? ` ${SITE_FILTER}` : severalSites ? ` ${SEVERAL_SITES}` : '';
  return `api.fetch ${ms(ours)} against the naive floor's ${ms(floor)} (${ratio(ours, floor)}) and the events page's ${ms(events)} in this run.${why} ${PROFILE}`;
}

/** Note for the people page against the events page, with every people page's ratio to it. */
export function peopleEventsNote(plain: CaseResult, events: CaseResult, people: CaseResult[]): string {
  const all = people.map((c) => `${c.params!.key}, ${c.params!.filter} ${ratio(c, events)}`).join('; ');
  return `People page ${ms(plain)} against the events page's ${ms(events)}; every people page against it: ${all}. ${PROFILE}`;
}
