/**
 * What the summary says when a people-paging target is missed: the figures of this run that
 * explain it, and what CPU profiles of `api.fetch` people pages showed (kept beside the figures they explain).
 */
import type { CaseResult } from '../results.ts';
import { postgresNote } from './postgres-notes.ts';

const ms = (c: CaseResult | number) => `${(typeof c === 'number' ? c : c.medianMs!).toFixed(3)} ms`;
const ratio = (a: CaseResult, b: CaseResult) => `${(a.medianMs! / b.medianMs!).toFixed(2)}×`;

/**
 * The profile behind the notes, on the default data (2,000 people; 2026-11-28, a 2-core Intel
 * machine): the V8 sampling profiler (--cpu-prof) over 25,000 api.fetch pages of 100 people
 * (account key, no filter), request loop only.
 */
const PROFILE =
  'Each person is stored as JSON text in pieces (head, figures, tail, attribution) as the data is loaded, and the page query concatenates them (core/store/person-row.ts), ' +
  'so no person is rendered per request any more: the page statement takes ~0.11 ms alone in a tight loop (it was ~0.54 ms with json_object over 31 columns). ' +
  "Since 2026-11-27 api.fetch's text() and json() return the text the Response was built from instead of decoding its bytes again (core/http/text-response.ts): ~110 µs less a people page, ~25 µs an events page. " +
  'Since 2026-11-28 the Node adapter reads rows as arrays and names their columns in JavaScript (adapters/node/array-rows.ts; 101 rows of the page: 171 → 144 µs alone) and the body is joined flat in one join (~25 µs less a people page, the copy V8 made of a joined page wrapped in its envelope). ' +
  'Since 2026-12-06 every view reads its page in one keyset query of rows (JSON, lastSeen, id), the same on SQLite and PostgreSQL: the whole-person copy in page order (people_whole), its Latin-1 bytes, the separate positions arm and the one-column reads are gone (issue 58). ' +
  'A profile of the page split it as: SQLite and the driver ~47% (the key, the rate-limit count and the page, its ~92 KB of text turned into JS strings); ' +
  'joining the body ~4%; GC ~3%; naming the rows\' columns ~2%; the rest the Request/Response objects, key hashing, the signed cursor and Kysely. ' +
  'The floor pays no Response: it returns its string.';

/** Why a people page costs more to carry than an events page of as many items. */
const BODY =
  'A people page carries twice the bytes of an events page (~927 bytes an item against ~451) and is not pure ASCII (the demo locations hold a few "ã"). ' +
  "In-process nothing encodes it (text() returns the string the Response was built from), but V8 turns UTF-8 into a string by a slow path from a string's first non-ASCII byte on: " +
  'the page joined by SQLite into one UTF-8 string, as an events page is, took ~270 µs to become a JS string against ~120 µs for its 100 rows (of which 8 hold such a character). ' +
  'The page is read as its rows, each person decoded from UTF-8 on their own.';

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
 * alone serves it (stored text joined, no request), `severalSites` when the key reads several sites;
 * on PostgreSQL the figures and that backend's profile.
 */
export function peopleFloorNote(ours: CaseResult, floor: CaseResult, events: CaseResult, sqlText: CaseResult | undefined, severalSites: boolean, onPostgres = false): string {
  const figures = `api.fetch ${ms(ours)} against the naive floor's ${ms(floor)} (${ratio(ours, floor)}) in this run.`;
  if (onPostgres) return postgresNote(figures);
  const filter = String(ours.params?.filter ?? '');
  const why = /^(domain|client_ref)=/.test(filter) ? ` ${SITE_FILTER}` : severalSites ? ` ${SEVERAL_SITES}` : '';
  const sql = sqlText
    ? ` The account's unfiltered page as SQLite alone serves it (stored text joined, no request around it) takes ${ms(sqlText)}; ` +
      `the events page through api.fetch, ${ms(events)}, is the request's own cost plus a cheaper query and body: the cost no people page goes below.`
    : '';
  return `${figures}${sql}${why} ${PROFILE}`;
}

/** The measured parts of the least a people page can cost (see people-paging.ts's leastCases). */
export interface LeastParts {
  /** A page of one person through api.fetch: the request's own work. */
  request: CaseResult;
  sqlText: CaseResult;
  sqlText1: CaseResult;
}

/** The least parts among a run's cases by their series, when all were measured (SQLite). */
export function leastParts(series: (name: string) => CaseResult | undefined): LeastParts | undefined {
  const parts = { request: series('request'), sqlText: series('SQL text'), sqlText1: series('SQL text 1') };
  return Object.values(parts).every((c) => c !== undefined) ? (parts as LeastParts) : undefined;
}

/**
 * Note for the people page against the events page, with every people page's ratio to it; with
 * `least` (SQLite), whether the least a people page can cost already exceeds the bound; on
 * PostgreSQL the figures and that backend's profile.
 */
export function peopleEventsNote(plain: CaseResult, events: CaseResult, people: CaseResult[], least?: LeastParts, onPostgres = false): string {
  const all = people.map((c) => `${c.params!.key}, ${c.params!.filter} ${ratio(c, events)}`).join('; ');
  if (onPostgres) return postgresNote(`People page ${ms(plain)} against the events page's ${ms(events)}; every people page against it: ${all}.`);
  return `People page ${ms(plain)} against the events page's ${ms(events)}; every people page against it: ${all}. ${BODY}${least ? ` ${leastNote(least, events)}` : ''} ${PROFILE}`;
}

/**
 * The least a people page of 100 can cost through api.fetch against 1.3× the events page: a page
 * of one (the request's own work) plus what 99 people more add to the SQL.
 */
function leastNote(p: LeastParts, events: CaseResult): string {
  const sql = p.sqlText.medianMs! - p.sqlText1.medianMs!;
  const least = p.request.medianMs! + sql;
  const bound = 1.3 * events.medianMs!;
  const sum =
    `A page of one person through api.fetch (the request's own work: key, limit, cursor, Response) takes ${ms(p.request)}; 99 people more add ${ms(sql)} of SQL with stored text ` +
    `(${ms(p.sqlText)} against ${ms(p.sqlText1)}, SQLite alone, read as our adapter reads them): at least ${ms(least)}`;
  return least > bound
    ? `${sum}, more than 1.3× the events page (${ms(bound)}): the bound is out of reach with this data on this runtime.`
    : `${sum}, within 1.3× the events page (${ms(bound)}): by this measure the bound is not out of reach; what a page of 100 adds beyond it is wrapping the body and GC.`;
}
