import { expressionBuilder, sql, type Kysely } from 'kysely';
import { companyCsvCells, personCsvHead, personCsvTail, type CompanyCsvFields, type PersonCsvFields } from '../exports/columns.ts';
import { dialectOf } from './dialect/index.ts';

/**
 * Formats the stored CSV cells (core/exports/columns.ts) of rows written before the columns
 * existed. Loading writes them with each row (ingest-store.ts); this fills in the rest once,
 * when a migration has added the columns (migration 0013), in JavaScript with the functions
 * loading uses, so the two never differ.
 */

/** Rows read, formatted and written back per statement. */
const ROWS_PER_STEP = 500;

/** The people columns a person's stored cells are formatted from. */
const PERSON_FIELDS = [
  'pk', 'id', 'email', 'business_email', 'personal_email', 'first_name', 'last_name', 'title', 'company', 'location',
  'region', 'linkedin_url', 'phone', 'profile_image_url', 'visit_count', 'first_seen', 'last_seen', 'is_hot_lead',
  'classified_seniority', 'classified_job_function', 'traffic_type', 'ad_platform', 'campaign', 'crm_status',
] as const;

/** The companies columns a company's stored cells are formatted from. */
const COMPANY_FIELDS = ['pk', 'id', 'name', 'domain', 'standardized_industry', 'location', 'employee_count'] as const;

/** Formats the stored CSV cells of every person and company that has none. */
export async function renderMissingCsv(db: Kysely<any>): Promise<void> {
  await fillEmpty<CompanyCsvFields>(db, 'companies', COMPANY_FIELDS, ['csv_cells'], (c) => [companyCsvCells(c)]);
  await fillEmpty<PersonCsvFields>(db, 'people', PERSON_FIELDS, ['csv_head', 'csv_tail'], (p) => [personCsvHead(p), personCsvTail(p)]);
}

/**
 * Formats the stored `columns` of every row of `table` whose first of them is null, in steps by
 * pk: `cells` gives a row's text for each column, in order.
 */
async function fillEmpty<R>(
  db: Kysely<any>,
  table: 'companies' | 'people',
  fields: readonly string[],
  columns: readonly string[],
  cells: (row: R) => string[],
): Promise<void> {
  // Each step seeks past the last pk it wrote: looking for the next empty rows from the start
  // would read every row already written, again each step.
  for (let after = 0; ; ) {
    const rows = (await db.selectFrom(table).select(fields).where('pk', '>', after).where(columns[0]!, 'is', null).orderBy('pk').limit(ROWS_PER_STEP).execute()) as (R & { pk: number })[];
    if (rows.length === 0) return;
    await writeBack(db, table, columns, rows.map((row) => [row.pk, ...cells(row)]));
    after = rows[rows.length - 1]!.pk;
  }
}

/** Writes formatted text by pk into `columns`, many rows a statement: each row `[pk, ...one text per column]`. */
async function writeBack(db: Kysely<any>, table: 'companies' | 'people', columns: readonly string[], rows: [number, ...string[]][]): Promise<void> {
  // Postgres types the values' parameters as text; the pk compares as an integer.
  const { int } = dialectOf(db).types;
  const eb = expressionBuilder<any, any>();
  const values = sql.join(rows.map(([pk, ...texts]) => sql`(${eb.cast(eb.val(pk), int)}, ${sql.join(texts)})`));
  // Both databases name a VALUES list's columns column1, column2, …: the pk, then the texts.
  const set = Object.fromEntries(columns.map((column, i) => [column, sql.ref(`x.column${i + 2}`)]));
  await db.updateTable(table).from(sql`(values ${values})`.as('x')).set(set).whereRef(`${table}.pk`, '=', 'x.column1').execute();
}
