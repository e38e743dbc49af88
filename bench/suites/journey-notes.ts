/**
 * What the summary says when a journey-paging target is missed: the figures of this run that
 * explain it, and what a CPU profile of `api.fetch` pages showed (kept beside the figures it explains).
 */
import type { CaseResult } from '../results.ts';
import { postgresNote } from './postgres-notes.ts';
import { percent, spreadOf } from './pass-ratios.ts';
import { describeThreadTime } from '../servers/thread-time.ts';

/** The journeys' first pages, ours and the floor's: identical work within each series. */
export interface FirstPages {
  ours: CaseResult[];
  floor: CaseResult[];
}

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
 * Note for the depth targets: ours against the floor's own depth ratios in this run, against the
 * shallowest page that also carries a cursor (which separates depth from cursor work), and how far
 * apart the journeys' first pages landed: they do the same work, so their spread shows whether
 * something else shared the CPU while the suite ran.
 */
export function depthNote(ours: PageTrio, floor: PageTrio, firstWithCursor: CaseResult | undefined, firstPages: CaseResult[], onPostgres = false): string {
  const cursorShare =
    'The pages differ in cursor work, not in depth: the first page signs a next cursor but verifies none, the last verifies one but signs none, and every page between does both. ' +
    'Since 2026-11-29 a cursor this process issued is verified from memory (no HMAC, no decoding), so a page between costs beyond the first only the cursor\'s parsing and lookup and its statement\'s cursor arm. ' +
    'Signing is what the first page pays and the last does not: ~13–18 µs between requests (SQLite first pages 0.111–0.118 ms against 0.098–0.101 with signatures answered from a memo, a scratch experiment, 2026-11-30; the HMAC itself ~4 µs with the CPU caches cold). ' +
    (firstWithCursor
      ? `Against the page at depth ${Number(firstWithCursor.params!.depth).toLocaleString('en')} (${ms(firstWithCursor)}, which also verifies and signs) the deep page is ${ratio(ours.deep, firstWithCursor)}. `
      : '');
  const figures =
    `api.fetch: first page ${ms(ours.first)}, deep ${ms(ours.deep)}, last ${ms(ours.last)} (medians); ` +
    `the naive floor's same pages ${ms(floor.first)}, ${ms(floor.deep)}, ${ms(floor.last)} (${ratio(floor.deep, floor.first)} and ${ratio(floor.last, floor.first)} of its first). ${spreadNote(firstPages)}${cursorShare}`;
  // A cursor's page is another statement on PostgreSQL, with a generic plan of its own (postgres-notes.ts).
  if (onPostgres) return postgresNote(`${figures}A page with a cursor is a statement of its own shape: it starts at the row value (ts, event_id) < (…), which PostgreSQL seeks in the index.`);
  return (
    figures +
    'On SQLite the cursor arm looks the person up four times instead of twice and counts the events at the cursor\'s own timestamp twice: 45.9 against 42.3 µs for the statement timed alone (2026-11-30). ' +
    'Eleven `--suites journey-paging` runs on fresh clones (2026-11-30, 2-core AMD EPYC machines) gave 1.06–1.10×: pages with a cursor 0.119–0.127 ms, first pages 0.110–0.120, last pages 0.100–0.104. ' +
    'That leaves the target a margin of a few per cent, less than these machines\' host takes from a case now and then: a loop of pure computation, with nothing else running in the machine, ran 1.2–1.8× slower for 30–300 ms at a time, and a loop kept busy on the other core did not slow it, so the slowdowns come from outside the machine (2026-11-30). ' +
    'Tried and not kept (2026-11-30): the person and the skip count read once per statement from a MATERIALIZED common table, which cost every page ~10 µs (the ratio fell to 1.03–1.07× because the first page got slower); binding the person\'s pk read with the summary, within the noise (1.05–1.07×). ' +
    'The passes visit the cases in shuffled order (since 2026-11-26: in one fixed order the page at depth 10,000 always followed the OFFSET floor at 1,000 and paid for its garbage). ' +
    'The keyset query is one index range scan (EXPLAIN: SEARCH events USING INDEX events_journey (person_pk=? AND ts<?)) over rows stored next to each other at every depth, and takes ts up to the cursor\'s whole, ' +
    'skipping the events before it at the same timestamp (counted in the index): the row-value condition it replaced was tested on every row walked, ~5 µs a page (2026-11-27).'
  );
}

/** The pages' medians, listed, and how far apart they landed, as a number and as words. */
function pagesSpread(pages: CaseResult[]): { list: string; spread: number; apart: string } {
  const medians = pages.map((c) => c.medianMs!);
  const spread = spreadOf(medians);
  return { list: medians.map((m) => ms(m)).join(', '), spread, apart: `${percent(spread)} apart` };
}

/**
 * The first pages of the journeys do the same work (sign a cursor, no verify), so their medians
 * should agree: in undisturbed runs they lie within 4% of each other (2026-11-30; the 50k journey's
 * is the quickest, its page's text 44.7 KB against 47.8 and 51.4 KB for the 10k's and 1k's). Full runs
 * that missed the depth target spread 22% (2026-11-30 00:49 UTC: 0.126, 0.132 and 0.154 ms).
 */
function spreadNote(firstPages: CaseResult[]): string {
  if (firstPages.length < 2) return '';
  const { list, spread, apart } = pagesSpread(firstPages);
  const usual = '(undisturbed SQLite runs stay within 4%, the 50k journey\'s first page the quickest: the least text)';
  const verdict = spread > 0.05 ? `more than 5% ${usual}, so something slowed parts of this suite, and its ratios say as much about that as about the code. ` : `within 5% ${usual}. `;
  return `The journeys' first pages, which do the same work, took ${list} (${apart}): ${verdict}${threadTimeNote(firstPages)}`;
}

/**
 * The floor's first pages, given without a verdict: the floor parses and stringifies each page, so
 * its cost follows the page's text, which differs by up to 15% between the journeys (above), and
 * an undisturbed run spread them 5% (2026-11-30 05:34 UTC: 0.296, 0.287 and 0.282 ms).
 */
function floorSpreadNote(firstPages: CaseResult[]): string {
  if (firstPages.length < 2) return '';
  const { list, apart } = pagesSpread(firstPages);
  return `The floor's first pages took ${list} (${apart}; 5% in an undisturbed SQLite run). `;
}

/**
 * Whether the slow ones waited for the CPU (another task on the core) or ran slower on it
 * (caches, memory, the host's other work): the measuring thread's time while each was sampled.
 */
function threadTimeNote(pages: CaseResult[]): string {
  if (!pages.every((c) => c.threadTime)) return '';
  return `While they were sampled the measuring thread was ${pages.map((c) => describeThreadTime(c.threadTime!)).join('; ')}. `;
}

/**
 * Note for the floor target: where our page's time goes, with the profile of the run's backend, and
 * how far apart the journeys' first pages landed, ours and the floor's: a ratio of two medians is
 * only as steady as the machine was while both were sampled.
 */
export function floorNote(ours: CaseResult, floor: CaseResult, sqlText: CaseResult | undefined, onPostgres: boolean, firstPages: FirstPages): string {
  const split = sqlText
    ? `The database reading the same 101 rows and joining their stored JSON takes ${ms(sqlText)} (${ratio(sqlText, floor)} of the floor, ${Math.round((100 * sqlText.medianMs!) / ours.medianMs!)}% of our page); ` +
      `the other ${ms(ours.medianMs! - sqlText.medianMs!)} is per-request work around the query. `
    : '';
  const page = sqlText
    ? ` The stored-JSON page itself (SQL + join) is ${sqlText.medianMs! / floor.medianMs! <= 0.6 ? 'already within' : 'above'} the bound in this run.`
    : '';
  const spread = `${spreadNote(firstPages.ours)}${floorSpreadNote(firstPages.floor)}`;
  if (onPostgres) return postgresNote(`api.fetch ${ms(ours)} against the naive floor's ${ms(floor)}. ${spread}${split.trimEnd()}${page}`);
  return `api.fetch ${ms(ours)} against the naive floor's ${ms(floor)}. ${spread}${split}${PROFILE}${page}`;
}
