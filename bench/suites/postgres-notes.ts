/**
 * What a missed paging target's note says on PostgreSQL, where the SQLite profiles of
 * journey-notes.ts and people-notes.ts do not apply: the statement log of one request, what came
 * of it, and what is left.
 */

/**
 * From the server's statement log (`log_min_duration_statement = 0`) over journey pages of the
 * default data, and one `pg` client timing the page statement both ways (2026-11-28, a 2-core
 * Intel Xeon machine, the local PostgreSQL 15).
 */
export const POSTGRES_PROFILE =
  'On PostgreSQL a page sends four statements (the key, the rate-limit count unless a place was counted ahead, the person or the account\'s sites, the page) where the floor sends two, ' +
  'and Kysely\'s PostgresDialect sent each unnamed, so the server parsed and planned it on every request: in the statement log the journey page statement took 0.11 ms to parse, ' +
  '0.27 ms to bind (where an unnamed statement is planned) and 0.28 ms to execute. Sent as a named prepared statement through pg, the same statement took 0.31 against 0.58 ms ' +
  '(1,000 calls on one client). Since then a statement sent outside a transaction is prepared by name (adapters/shared/postgres-statements.ts): the journey page at depth went ' +
  'from 1.87× to 1.26× its floor in the next run. What is left is the round trips: four a page where the floor makes two, each a wait on the server\'s process.';

/** The note for a paging target on PostgreSQL: this run's figures, then the profile. */
export function postgresNote(figures: string): string {
  return `${figures} ${POSTGRES_PROFILE}`;
}
