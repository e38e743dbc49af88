/**
 * What the summary says when a journey-paging target is missed: the figures of this run that
 * explain it, and what a CPU profile of `api.fetch` pages showed (kept beside the figures it explains).
 */
import type { CaseResult } from '../results.ts';
import { postgresNote } from './postgres-notes.ts';

/** A page at depth 0, at the deep depth and the last page. */
export interface PageTrio {
  first: CaseResult;
  deep: CaseResult;
  last: CaseResult;
}

const ms = (c: CaseResult | number) => `${(typeof c === 'number' ? c : c.medianMs!).toFixed(3)} ms`;
const ratio = (a: CaseResult, b: CaseResult) => `${(a.medianMs! / b.medianMs!).toFixed(2)}×`;

/**
 * The profile behind the notes, on the default data (2026-11-25, 2-core machine; the last two
 * sentences from measurements of 2026-11-26): the V8 sampling
 * profiler (`node --cpu-prof`) over 30,000 api.fetch pages of the 50k journey (first page, text read
 * back), by category; and the page statement timed alone against the same statement inside the loop.
 */
const PROFILE =
  'A CPU profile of api.fetch pages (the 50k journey, default data) splits one as: SQLite running its four statements (key lookup, the rate-limit count, person summary, the page joined into one string by SQLite) ~47%; ' +
  'the Fetch Request and Response around the core (an AbortSignal, Headers, a body stream each, the body encoded to UTF-8 and, until 2026-11-27, decoded back by text()) ~11%, which the Node adapter skips by asking the core for its Reply ' +
  '(and since 2026-11-29, in-process, by making a JSON answer\'s body stream only when it is read other than as text: ~70 µs of a page against ~18 µs without, on a slow machine); ' +
  'our own JS ~12%; synchronous node:crypto (key SHA-256, cursor HMAC) ~3%; GC ~6%; Kysely ~1% (hot queries are compiled once per shape and their statements prepared once). ' +
  'The page statement took ~85 µs run alone in a tight loop but 150–230 µs between requests, where the JS work in between evicts what it keeps in the CPU caches; until 2026-11-26 SQLite also prepared it anew on every run (a bare LIMIT parameter): prepared once it takes ~67 µs alone and ~120 µs between requests; ' +
  'the floor runs in a tight loop with two cached statements (the person, the page), 100 JSON.parse and one JSON.stringify, and no key, limit or cursor statement. ' +
  'The bound is not out of reach: a minimal page doing the same contract work (the four statements on raw prepared statements, key hash, cursor HMACs, Fetch objects; no router, no Kysely, no validation) measured ~0.44× the floor in one interleaved run on 2026-11-26, against ~0.95× for ours before the LIMIT fix; the difference is our own layers.';

/**
 * Note for the depth targets: ours against the floor's own depth ratios in this run, and against
 * the shallowest page that also carries a cursor, which separates depth from cursor checking.
 */
export function depthNote(ours: PageTrio, floor: PageTrio, firstWithCursor: CaseResult | undefined, onPostgres = false): string {
  // Timed inside api.fetch (2026-11-26): an HMAC ~10 µs (Node builds an Hmac object per call, ~8 µs of it), a verify ~13 µs, a sign ~14 µs.
  // Again on 2026-11-29 (a slower AMD EPYC machine): the note below gives those figures; the deep page's SQL was ~9 µs more than the first's, timed alone.
  const cursorShare =
    'The pages differ in cursor work, not in depth: the first page signs a next cursor but verifies none, the last verifies one but signs none, ' +
    'and every page between does both (one synchronous HMAC more than either end: ~5 µs in a tight loop, 10–23 µs between requests by machine, where the rest of the request has evicted what OpenSSL keeps in the CPU caches) and parses the cursor. ' +
    'On a 2-core AMD EPYC machine (2026-11-29) verifying the cursor took 30–36 µs of the 55–60 µs a deep page cost beyond the first (answered from memory instead, the difference fell to 16 µs), ~7% of a 0.47 ms first page, with the 1.1× bound at 47 µs. ' +
    'Since then the API remembers the MAC, position and expiry of the last 4,096 cursors it signed, so a cursor it issued (the one a client presents next) costs no HMAC and no decoding: in `--suites journey-paging` runs there, 1.19× → 1.08× for the page at depth 10,000. ' +
    (firstWithCursor
      ? `Against the page at depth ${Number(firstWithCursor.params!.depth).toLocaleString('en')} (${ms(firstWithCursor)}, which also verifies and signs) the deep page is ${ratio(ours.deep, firstWithCursor)}. `
      : '');
  const figures =
    `api.fetch: first page ${ms(ours.first)}, deep ${ms(ours.deep)}, last ${ms(ours.last)} (medians); ` +
    `the naive floor's same pages ${ms(floor.first)}, ${ms(floor.deep)}, ${ms(floor.last)} (${ratio(floor.deep, floor.first)} and ${ratio(floor.last, floor.first)} of its first). ${cursorShare}`;
  // A cursor's page is another statement on PostgreSQL, with a generic plan of its own (postgres-notes.ts).
  if (onPostgres) return postgresNote(`${figures}A page with a cursor is a statement of its own shape: it starts at the row value (ts, event_id) < (…), which PostgreSQL seeks in the index.`);
  return (
    figures +
    'Since 2026-11-26 the passes visit the cases in shuffled order: in one fixed order the page at depth 10,000 always followed the OFFSET floor at 1,000 and paid for its garbage (1.22× and 1.23× in two runs). ' +
    'The keyset query is one index range scan (EXPLAIN: SEARCH events USING INDEX events_journey (person_pk=? AND ts<?)) and costs the same at every depth ' +
    '(about 0.1 ms for a page from depth 0 to 49,900, measured alone), so what remains is the machine (5–15% run to run) and per-request work (cursor checks, GC pauses), not depth. ' +
    'Since 2026-11-27 that scan takes ts up to the cursor\'s whole and skips the events before it at the same timestamp (counted in the index): the row-value condition it replaced was tested on every row walked, ~5 µs a page (alone, 2026-11-27), a third of what a deep page then cost beyond the first.'
  );
}

/** Note for the floor target: where our page's time goes, with the profile of the run's backend. */
export function floorNote(ours: CaseResult, floor: CaseResult, sqlText: CaseResult | undefined, onPostgres = false): string {
  const split = sqlText
    ? `The database reading the same 101 rows and joining their stored JSON takes ${ms(sqlText)} (${ratio(sqlText, floor)} of the floor, ${Math.round((100 * sqlText.medianMs!) / ours.medianMs!)}% of our page); ` +
      `the other ${ms(ours.medianMs! - sqlText.medianMs!)} is per-request work around the query. `
    : '';
  const page = sqlText
    ? ` The stored-JSON page itself (SQL + join) is ${sqlText.medianMs! / floor.medianMs! <= 0.6 ? 'already within' : 'above'} the bound in this run.`
    : '';
  if (onPostgres) return postgresNote(`api.fetch ${ms(ours)} against the naive floor's ${ms(floor)}. ${split.trimEnd()}${page}`);
  return `api.fetch ${ms(ours)} against the naive floor's ${ms(floor)}. ${split}${PROFILE}${page}`;
}
