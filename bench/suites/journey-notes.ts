/**
 * What the summary says when a journey-paging target is missed: the figures of this run that
 * explain it, and what a CPU profile of `api.fetch` pages showed (kept beside the figures it explains).
 */
import type { CaseResult } from '../results.ts';

/** A page at depth 0, at the deep depth and the last page. */
export interface PageTrio {
  first: CaseResult;
  deep: CaseResult;
  last: CaseResult;
}

const ms = (c: CaseResult | number) => `${(typeof c === 'number' ? c : c.medianMs!).toFixed(3)} ms`;
const ratio = (a: CaseResult, b: CaseResult) => `${(a.medianMs! / b.medianMs!).toFixed(2)}×`;

/**
 * The profile and the experiment behind the notes, on the default data (2026-11, 2-core machine):
 * `node --cpu-prof` over 15 s of api.fetch pages at depth 10,000 of the 50k journey, request loop
 * only, by category; and the same pages with crypto.subtle's digest and sign swapped in-process for
 * synchronous node:crypto stand-ins (an A/B run twice, interleaved, median of 4,000 pages each).
 */
const CRYPTO_AB =
  'Swapping crypto.subtle for synchronous node:crypto stand-ins in-process cut the page at depth 10,000 from 1.19–1.34 ms to 0.57–0.67 ms ' +
  'and the first page from 0.97–1.08 ms to 0.51–0.61 ms: each crypto.subtle call is a round trip through the libuv thread pool, ' +
  'and with a waking worker thread between SQLite calls it costs far more than the ~22 µs it takes in a tight loop.';
const PROFILE =
  'A CPU profile of api.fetch pages (depth 10,000 of the 50k journey, default data) splits one as: SQLite running its three statements (key lookup, person summary, the page) 22%; ' +
  'crypto.subtle 26% (SHA-256 of the key, HMAC verify and sign of the cursor; 9 of the 26 points the main thread idle waiting for the thread pool); ' +
  'the fetch Request/Response and reading the body stream 15%; better-sqlite3 prepare 11% (Kysely keeps no statement cache, so every query is prepared anew); ' +
  'our own JS 10%; Kysely building and compiling the three queries 8%; GC 5%. ' +
  `${CRYPTO_AB} ` +
  'The floor pays for none of this: one cached statement, 100 JSON.parse and one JSON.stringify. ' +
  'Reaching 0.6× needs nearly all of it gone: no thread-pool hop per request (callers cached by key instead of hashed each time, HMAC in synchronous code), ' +
  'statements compiled and prepared once, less Response machinery.';

/**
 * Note for the depth targets: ours against the floor's own depth ratios in this run, and against
 * the shallowest page that also carries a cursor, which separates depth from cursor checking.
 */
export function depthNote(ours: PageTrio, floor: PageTrio, firstWithCursor: CaseResult | undefined): string {
  // Seen in every run so far: first and last page alike, the pages between them dearer by about one HMAC.
  const cursorShare =
    'The pages differ in cursor work, not in depth: the first page signs a next cursor but verifies none, the last verifies one but signs none, ' +
    'and every page between does both, one more crypto.subtle HMAC (a thread-pool round trip) than either end; with synchronous stand-ins for ' +
    'crypto.subtle the gap between the first and the deep page fell from about 0.25 ms to 0.06 ms. ' +
    (firstWithCursor
      ? `Against the page at depth ${Number(firstWithCursor.params!.depth).toLocaleString('en')} (${ms(firstWithCursor)}, which also verifies and signs) the deep page is ${ratio(ours.deep, firstWithCursor)}. `
      : '');
  return (
    `api.fetch: first page ${ms(ours.first)}, deep ${ms(ours.deep)}, last ${ms(ours.last)} (medians); ` +
    `the naive floor's same pages ${ms(floor.first)}, ${ms(floor.deep)}, ${ms(floor.last)} (${ratio(floor.deep, floor.first)} and ${ratio(floor.last, floor.first)} of its first). ${cursorShare}` +
    'The keyset query is one index range scan (EXPLAIN: SEARCH events USING INDEX events_journey (person_pk=? AND (ts,event_id)<(?,?))) and costs the same at every depth ' +
    '(about 0.13 ms for 101 rows from depth 0 to 49,900, measured alone on a quiet machine), so what remains is the machine (5–15% run to run) and per-request work (GC pauses, thread-pool hops), not depth.'
  );
}

/** Note for the floor target: where our page's time goes. */
export function floorNote(ours: CaseResult, floor: CaseResult, sqlText: CaseResult | undefined): string {
  const split = sqlText
    ? `SQLite reading the same 101 rows and joining their stored JSON takes ${ms(sqlText)} (${ratio(sqlText, floor)} of the floor, ${Math.round((100 * sqlText.medianMs!) / ours.medianMs!)}% of our page); ` +
      `the other ${ms(ours.medianMs! - sqlText.medianMs!)} is per-request work around the query. `
    : '';
  const page = sqlText
    ? ` The stored-JSON page itself (SQL + join) is ${sqlText.medianMs! / floor.medianMs! <= 0.6 ? 'already within' : 'above'} the bound in this run.`
    : '';
  return `api.fetch ${ms(ours)} against the naive floor's ${ms(floor)}. ${split}${PROFILE}${page}`;
}
