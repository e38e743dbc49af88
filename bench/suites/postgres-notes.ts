/**
 * What a missed paging target's note says on PostgreSQL, where the SQLite profiles of
 * journey-notes.ts and people-notes.ts do not apply: the statement log of one request, what came
 * of it, and what is left.
 */

/**
 * From the server's statement log (`log_min_duration_statement = 0`) over journey pages of the
 * default data, one `pg` client timing the page statement both ways (2026-11-28, a 2-core Intel
 * Xeon machine), and each statement of a request timed in the API's own `pg` client, 8,900 journey
 * pages (later that day, a 2-core AMD EPYC machine; both with the local PostgreSQL 15); the
 * journey page's rows against string_agg timed as named statements in one `pg` client (that night,
 * another such AMD machine).
 */
export const POSTGRES_PROFILE =
  'On PostgreSQL a page sends up to four statements (the key, the rate-limit count unless a place was counted ahead, the person of a journey, the page) where the floor sends two; ' +
  'the key\'s lookup brings the account\'s sites too when a page needs them (a domain-scoped key, a domain or client_ref filter), which took one more round trip before 2026-11-28 evening. ' +
  'A people page merged from several sites (a site filter, a key over a domain and its subdomains) orders and limits each site\'s arm (the dialect\'s limitsUnionArms): ' +
  'the planner merges index scans that stop at the page instead of reading every row of the sites and sorting them (domain=acme-example.com: 0.91 → 0.54 ms a statement, the page 0.78× → 0.54× its floor). ' +
  'Kysely\'s PostgresDialect sent each unnamed, so the server parsed and planned it on every request (journey page statement: parse 0.11 ms, bind 0.27, execute 0.28 in the statement log); ' +
  'named, it took 0.31 against 0.58 ms, and a statement sent outside a transaction has been prepared by name since (adapters/shared/postgres-statements.ts). ' +
  'Then a GET came to be answered while its count is in flight, and the count\'s table unlogged: the count overlaps the person and the page instead of preceding them. ' +
  'Each statement as the API\'s pg client waits for it (medians): key 0.165 ms, count 0.160, person 0.141, page 0.290 (first) and 0.334 (after a cursor, before the page started at the row value). ' +
  'Since 2026-11-28 night a journey page reads its 101 rows and joins the bodies in JavaScript (the dialect\'s joinsPageBodies), where PostgreSQL joined them with string_agg: ' +
  '0.19 against 0.70 ms a statement on that machine; and the person and the page are read at once (the page names the person by id), so a journey page waits on two round trips in a row, the key and then both, as the floor waits on two. ' +
  'Together, in --suites journey-paging runs on that machine: the page at depth 10,000 1.40 → 0.85–1.01 ms, 1.65× → 0.98–1.17× its floor. ' +
  'What no change of ours removes: every request looks its key up in the database (a key revoked in one process is refused by all at once), and the page statement answering alone ' +
  '(SQL + stored text, the same statement the API now sends) took 0.25–0.36 ms in these runs, so a page costs at least ~0.42–0.52 ms of waiting on the server with the key\'s round trip, ' +
  'and the request\'s own work in JavaScript comes on top (on SQLite, where a statement is a few µs away, a journey page costs ~0.14 ms more than its statement), against a bound of 0.6× a floor of 0.70–0.87 ms, 0.42–0.52 ms: ' +
  'the events page target is out of reach on PostgreSQL while keys are checked against the database on each request.';

/** The note for a paging target on PostgreSQL: this run's figures, then the profile. */
export function postgresNote(figures: string): string {
  return `${figures} ${POSTGRES_PROFILE}`;
}
