import { sql, type RawBuilder } from 'kysely';
import { CSV_LINE_END, NO_COMPANY } from '../exports/columns.ts';
import type { ExportFilters } from '../exports/filters.ts';
import { dialectOf } from './dialect/index.ts';
import { attributedSite, isDescending, selectionConditions, sortKeys, type SelectionContext } from './export-selection.ts';
import type { Db } from './schema.ts';

/**
 * Writes an export's whole file in one statement where writers run side by side (Postgres; see
 * the dialect's `singleWriter`): select, sort, join the stored CSV pieces and insert chunks, with nothing
 * passing through JavaScript. Far faster than steps; a stopped run restarts from the beginning.
 */

/** How the file is cut and capped. */
export interface WholeFileShape {
  jobId: string;
  filters: ExportFilters;
  selection: SelectionContext;
  /** The CSV cells of each of the account's sites, by pk. */
  siteCells: ReadonlyMap<number, string>;
  /** Lines a chunk holds. */
  rowsPerChunk: number;
  /** The most rows the file holds. */
  cap: number;
  /** Text before the first line (the header). */
  header: string;
}

/** What the statement wrote. */
export interface WrittenFile {
  /** Chunks inserted (0 when nobody was selected). */
  chunks: number;
  /** Lines in the file: the selected people up to the cap. */
  rows: number;
  /** People selected, past the cap too. */
  selected: number;
  /** Of the rows, those whose line could not be formed (a site not among the cells, stored cells missing): none, or the file is wrong. */
  unformed: number;
}

/** A site's CSV cells by the row's `site_pk` (null for a site not given). */
function siteCellsOf(siteCells: ReadonlyMap<number, string>): RawBuilder<string | null> {
  if (siteCells.size === 0) return sql`cast(null as text)`;
  return sql`(case s.site_pk ${sql.join([...siteCells].map(([pk, cells]) => sql`when ${pk} then ${cells}`), sql` `)} end)`;
}

/**
 * Inserts the job's file into `export_chunks`, chunk 0 first: `header`, then each selected
 * person's line (core/exports/columns.ts's `csvLine`, spelled in SQL) in file order, up to the cap.
 */
export async function writeWholeFile(trx: Db, shape: WholeFileShape): Promise<WrittenFile> {
  const dialect = dialectOf(trx);
  const [k1, k2] = sortKeys(shape.filters, dialect.exportKeys);
  const direction = sql.raw(isDescending(shape.filters) ? 'desc' : 'asc');
  const selected = trx
    .selectFrom('people as p')
    .select([k1.as('k1'), k2.as('k2'), 'p.id', 'p.csv_head', 'p.csv_tail', 'p.company_pk', attributedSite(shape.filters, shape.selection.sites).as('site_pk')])
    .where((eb) => selectionConditions(eb, shape.filters, shape.selection));
  const line = sql`s.csv_head || ',' || coalesce(lc.csv_cells, ${NO_COMPANY}) || ',' || ${siteCellsOf(shape.siteCells)} || ',' || s.csv_tail || ${CSV_LINE_END}`;
  const lines = sql`select ${line} as line, row_number() over (order by s.k1 ${direction}, s.k2 ${direction}, s.id ${direction}) as rn
    from (${selected}) s left join ${sql.table('companies')} lc on lc.pk = s.company_pk`;
  const seq = sql`(rn - 1) / ${shape.rowsPerChunk}`;
  // The people past the cap are counted in their chunks but not written: a window count over the
  // whole selection would hold every line until the last was read.
  const kept = sql<boolean>`rn <= ${shape.cap}`;
  const { rows } = await sql<{ chunks: number | string; rows: number | string; formed: number | string; selected: number | string }>`
    with lines as (${lines}),
    chunked as (
      select ${seq} as seq, ${dialect.orderedConcat(sql`case when ${kept} then line end`, '', sql`rn`)} as data,
        count(*) filter (where ${kept}) as lines, count(line) filter (where ${kept}) as formed, count(*) as selected
      from lines group by 1
    ),
    inserted as (
      insert into ${sql.table('export_chunks')} (job_id, seq, data)
      select cast(${shape.jobId} as text), seq, (case when seq = 0 then cast(${shape.header} as text) else '' end) || data from chunked where lines > 0
    )
    select count(*) filter (where lines > 0) as chunks, coalesce(sum(lines), 0) as rows, coalesce(sum(formed), 0) as formed, coalesce(sum(selected), 0) as selected from chunked`.execute(trx);
  const row = rows[0]!;
  return { chunks: Number(row.chunks), rows: Number(row.rows), selected: Number(row.selected), unformed: Number(row.rows) - Number(row.formed) };
}
