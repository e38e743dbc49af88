/**
 * What the summary says when a people-paging target is missed: the figures of this run that
 * explain it, and what CPU profiles of `api.fetch` people pages showed (kept beside the figures they explain).
 */
import type { CaseResult } from '../results.ts';

const ms = (c: CaseResult | number) => `${(typeof c === 'number' ? c : c.medianMs!).toFixed(3)} ms`;
const ratio = (a: CaseResult, b: CaseResult) => `${(a.medianMs! / b.medianMs!).toFixed(2)}×`;

/**
 * The profile behind the notes, on the default data (2,000 people; 2026-11-24, a 2-core machine
 * shared with other sessions): the V8 sampling profiler (node:inspector) over 6,000 api.fetch
 * pages of 100 people (account key, no filter) and as many of 100 events, request loop only.
 */
const PROFILE =
  'Each person is stored as JSON text in pieces (head, figures, tail, attribution) as the data is loaded, and the page query concatenates them (core/store/person-row.ts), ' +
  'so no person is rendered per request any more: the page statement takes ~0.17 ms alone (it was ~0.54 ms with json_object over 31 columns). ' +
  "A profile of the page now splits it as: SQLite and the driver ~35% (the key, the rate-limit count and the page, its ~92 KB of text turned into JS strings); " +
  'TextEncoder/TextDecoder turning the body into UTF-8 and back ~16% (an events page: ~3%); GC ~7%; the rest the Request/Response objects, key hashing, the signed cursor and Kysely. ' +
  'The floor pays none of the body round trip: it returns its string.';

/** Why a people page costs more to carry than an events page of as many items. */
const BODY =
  'A people page carries twice the bytes of an events page (~927 bytes an item against ~451) and is not pure ASCII (the demo locations hold a few "ã"): ' +
  "one such character takes the whole body off TextEncoder's and TextDecoder's ASCII fast paths, so its UTF-8 round trip costs several times the events page's, not twice.";

/** Why an account key's `domain`/`client_ref` page costs more than the unfiltered one. */
const SITE_FILTER =
  "An account key filtered to some sites merges the sites' own index ranges, ordered by each person's lastSeen anywhere (copied onto their visits as they load), and lists each person once, at their latest visit among the sites, " +
  'which is their attribution (a lookup only for people seen on more than one site); then it reads each person by key. Its cost follows the page, not how rare the sites are (the floor, like our code before, walks everybody by lastSeen and keeps ' +
  'those seen there: three people read a hit for acme, twenty for partner-agency). Timed alone the statement takes ~0.24 ms against the unfiltered ~0.18 ms; between requests ~0.44 against ~0.25 ms, ' +
  'reading three tables where the unfiltered page reads one, plus one statement more per request (the account\'s sites, to resolve the filter).';

/** Why a scoped key over several sites costs more than one site's key. */
const SEVERAL_SITES =
  "A scoped key over several sites merges one index range per site (hot leads' rows have their own), checks each row is its person's latest there and sums each person's visits over the sites at query time " +
  '(a lookup each, skipped for people seen on one site alone, who have their stored figures), writing the figures between the stored head and tail. The floor groups every visit in scope first.';

/**
 * Note for a people page's floor target; `sqlText` is the account's unfiltered page as SQLite
 * alone serves it (stored text joined, no request), `severalSites` when the key reads several sites.
 */
export function peopleFloorNote(ours: CaseResult, floor: CaseResult, events: CaseResult, sqlText: CaseResult | undefined, severalSites: boolean): string {
  const filter = String(ours.params?.filter ?? '');
  const why = /^(domain|client_ref)=/.test(filter) ? ` ${SITE_FILTER}` : severalSites ? ` ${SEVERAL_SITES}` : '';
  const sql = sqlText
    ? ` The account's unfiltered page as SQLite alone serves it (stored text concatenated and joined, no request around it) takes ${ms(sqlText)}; ` +
      `the events page through api.fetch, ${ms(events)}, is the request's own cost plus a cheaper query and body: the cost no people page goes below.`
    : '';
  return `api.fetch ${ms(ours)} against the naive floor's ${ms(floor)} (${ratio(ours, floor)}) in this run.${sql}${why} ${PROFILE}`;
}

/**
 * Note for the people page against the events page, with every people page's ratio to it; with
 * `least` (SQLite), whether the page's own SQL and its body's decoding alone already exceed the bound.
 */
export function peopleEventsNote(plain: CaseResult, events: CaseResult, people: CaseResult[], least?: { sqlText: CaseResult; decode: CaseResult }): string {
  const all = people.map((c) => `${c.params!.key}, ${c.params!.filter} ${ratio(c, events)}`).join('; ');
  return `People page ${ms(plain)} against the events page's ${ms(events)}; every people page against it: ${all}. ${BODY}${least ? ` ${leastNote(least.sqlText, least.decode, events)}` : ''} ${PROFILE}`;
}

/** The least a people page can cost (its SQL, and the client decoding its body) against 1.3× the events page. */
function leastNote(sqlText: CaseResult, decode: CaseResult, events: CaseResult): string {
  const least = sqlText.medianMs! + decode.medianMs!;
  const bound = 1.3 * events.medianMs!;
  const sum = `The page's own SQL with its stored text joined (${ms(sqlText)}) and the decoding of its body into a string that every client's text() does (${ms(decode)}) alone take ${ms(least)}`;
  return least > bound
    ? `${sum}, more than 1.3× the events page (${ms(bound)}) before any key, limit, cursor or Response: the bound is out of reach with this data on this runtime.`
    : `${sum}, within 1.3× the events page (${ms(bound)}): by this measure the bound is not out of reach.`;
}
