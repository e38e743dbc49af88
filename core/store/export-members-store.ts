import { sql } from 'kysely';
import type { StoredCsvRow } from '../exports/columns.ts';
import type { ExportFilters } from '../exports/filters.ts';
import type { Site } from '../scope/view.ts';
import { CompiledQueries } from './compiled-queries.ts';
import { dialectOf, type SqlDialect } from './dialect/index.ts';
import { attributedSite, selectionConditions, sortKeys } from './export-selection.ts';
import { StagedRuns, type CollectProgress, type CollectTable } from './export-staging.ts';
import type { ExportJob } from './exports-store.ts';
import type { Db } from './schema.ts';

/** Where a member sits in its job's file order: its sort keys and person id. */
export interface MemberKey {
  k1: number | string;
  k2: number | string;
  person_id: string;
}

/** A member as the writer merges it: `[k1, k2, person_id, person_pk, site_pk]`, its place in the file order and what its row is made of. */
export type MemberRef = [k1: number | string, k2: number | string, personId: string, personPk: number, sitePk: number];

/** The key of a member, as the job records where writing stands. */
export function keyOf(member: MemberRef): MemberKey {
  return { k1: member[0], k2: member[1], person_id: member[2] };
}

/** Where a cleanup of a job's members stands: every run below `run` is gone, and of `run` every member up to `key` (null: none yet). */
export interface MemberPosition {
  run: number;
  key: MemberKey | null;
}

/** How much one collection step takes on. */
export interface CollectSizes {
  /** People pks this step walks (or, staging a run, members it moves). */
  pks: number;
  /** People pks a sorted run spans (where the dialect keeps sorted runs). */
  runPks: number;
  /** The most rows a file holds. */
  cap: number;
}

export type { CollectProgress };

/** How collection's SQL names the people table (the dialect may add a hint after it). */
const PEOPLE_FROM = 'from "people" as "p"';

/**
 * The people an export job selected ("members"), with sort keys and attributed site, kept in
 * sorted runs the writer merges. Dialects that write a whole file themselves collect none.
 */
export class ExportMembersStore {
  readonly #queries: CompiledQueries;
  readonly #dialect: SqlDialect;
  readonly #staged: StagedRuns;

  constructor(private readonly db: Db) {
    this.#queries = new CompiledQueries(db);
    this.#dialect = dialectOf(db);
    this.#staged = new StagedRuns(db);
  }

  /**
   * Whether a job's whole file is written by one statement (core/store/export-whole-file.ts): where
   * writers run side by side. With one writer (SQLite) that statement would hold back every other
   * write, so the job collects sorted runs in short steps instead.
   */
  get wholeFile(): boolean {
    return !this.#dialect.singleWriter;
  }

  /** Starts or resumes collecting a job where its record says (forgetting what a run cut short left behind). */
  async beginCollection(job: ExportJob, runPks: number): Promise<void> {
    await this.#staged.begin(job, runPks);
  }

  /**
   * Collects the next selected people after `job.collect_after_pk` (up to `sizes.pks`), staged
   * then moved in key order (export-staging.ts); `record` saves progress in the same transaction,
   * so a stopped run resumes exactly. The last step sets `member_count` and `partial`.
   */
  async collectStep(job: ExportJob, filters: ExportFilters, sites: Site[], sizes: CollectSizes, record: (trx: Db, progress: CollectProgress) => Promise<void>): Promise<CollectProgress> {
    const selectInto = (trx: Db, table: CollectTable, run: number, from: number, to: number) => this.#selectInto(trx, table, job, filters, sites, run, from, to);
    return this.#staged.step(job, sizes, selectInto, record);
  }

  /** Inserts the people a job selects among pks (from, to] into `table`, with their sort keys and attributed site, tagged with `run`; how many. */
  async #selectInto(trx: Db, table: CollectTable, job: ExportJob, filters: ExportFilters, sites: Site[], run: number, from: number, to: number): Promise<number> {
    const ctx = { accountId: job.account_id, sites, nowSeconds: job.selected_at! };
    const [k1, k2] = sortKeys(filters, this.#dialect.exportKeys);
    const compiled = trx
      .insertInto(table)
      .columns(['job_id', 'run', 'k1', 'k2', 'person_id', 'person_pk', 'site_pk'])
      .expression(
        trx
          .selectFrom('people as p')
          // Typed: Postgres cannot infer a parameter's type in a select list.
          .select([sql<string>`cast(${job.id} as text)`.as('job_id'), sql<number>`cast(${run} as integer)`.as('run'), k1.as('k1'), k2.as('k2'), 'p.id', 'p.pk', attributedSite(filters, sites).as('site_pk')])
          .where('p.pk', '>', from)
          .where('p.pk', '<=', to)
          .where((eb) => selectionConditions(eb, filters, ctx)),
      )
      .compile();
    const { numAffectedRows } = await trx.executeQuery({ ...compiled, sql: this.#dialect.exportKeys.walkPkRange(compiled.sql, PEOPLE_FROM) });
    return Number(numAffectedRows ?? 0);
  }

  /** The first run of a job's members after run `after` (from the first when null), or undefined past the last. */
  async nextRun(jobId: string, after: number | null): Promise<number | undefined> {
    const rows = await this.#queries.rows(
      'members:next-run',
      (p) => this.db.selectFrom('export_members').select('run').where('job_id', '=', p('jobId')).where('run', '>', p('after')).orderBy('run').limit(1),
      { jobId, after: after ?? -1 },
    );
    return rows[0]?.run;
  }

  /**
   * Up to `limit` members of one run after `after` (from its start when null) in file order. Read
   * as one JSON text a query: rows handed over one by one made V8 keep them in its old generation.
   */
  async runMembers(jobId: string, run: number, descending: boolean, after: MemberKey | null, limit: number): Promise<MemberRef[]> {
    const shape = `members:run:${descending ? 'desc' : 'asc'}:${after ? 'next' : 'first'}`;
    const values = after ? { jobId, run, limit, k1: after.k1, k2: after.k2, id: after.person_id } : { jobId, run, limit };
    const direction = descending ? 'desc' : 'asc';
    const [row] = await this.#queries.rows(
      shape,
      (p) => {
        let run = this.db
          .selectFrom('export_members')
          .select(['k1', 'k2', 'person_id', 'person_pk', 'site_pk'])
          .where('job_id', '=', p('jobId'))
          .where('run', '=', p('run'))
          .orderBy('k1', direction)
          .orderBy('k2', direction)
          .orderBy('person_id', direction)
          .limit(p('limit'));
        if (after) run = run.where(sql<boolean>`(k1, k2, person_id) ${sql.raw(descending ? '<' : '>')} (${p('k1')}, ${p('k2')}, ${p('id')})`);
        const member = this.#dialect.jsonArray([sql.ref('k1'), sql.ref('k2'), sql.ref('person_id'), sql.ref('person_pk'), sql.ref('site_pk')]);
        return this.db.selectFrom(run.as('m')).select(this.#dialect.orderedConcat(member, ',', sql.raw(`k1 ${direction}, k2 ${direction}, person_id ${direction}`)).as('members'));
      },
      values,
    );
    return row?.members ? (JSON.parse(`[${row.members}]`) as MemberRef[]) : [];
  }

  /** The stored CSV pieces of these people (by pk), in no particular order: what their lines are joined from. */
  async rows(personPks: number[]): Promise<StoredCsvRow[]> {
    const values: Record<string, number> = {};
    personPks.forEach((pk, i) => (values[`pk${i}`] = pk));
    // Run thousands of times per export: compiled once per batch size (one or two sizes a job).
    const [row] = await this.#queries.rows(
      `members:rows:${personPks.length}`,
      (p) =>
        this.db
          .selectFrom('people as p')
          .leftJoin('companies as c', 'c.pk', 'p.company_pk')
          .select(this.#dialect.orderedConcat(this.#dialect.jsonArray([sql.ref('p.pk'), sql.ref('p.csv_head'), sql.ref('c.csv_cells'), sql.ref('p.csv_tail')]), ',', sql`p.pk`).as('rows'))
          .where('p.pk', 'in', personPks.map((_, i) => p(`pk${i}`))),
      values,
    );
    return row?.rows ? (JSON.parse(`[${row.rows}]`) as StoredCsvRow[]) : [];
  }

  /**
   * Deletes up to `limit` of a job's members from its lowest run, after `after` (null: from the
   * start); returns where it stopped, or undefined once none is left. The run is a condition apart
   * from the row comparison so a B-tree scan can stop at the bound (Postgres keeps deleted rows).
   */
  async dropMembers(jobId: string, limit: number, after: MemberPosition | null, trx: Db = this.db): Promise<MemberPosition | undefined> {
    let at = after;
    for (;;) {
      const run = at?.run ?? (await this.#runAfter(trx, jobId, null));
      if (run === undefined) return undefined;
      const key = at?.key;
      const past = key && sql<boolean>`(k1, k2, person_id) > (${key.k1}, ${key.k2}, ${key.person_id})`;
      // The primary key keeps a run sorted, so its first `limit` members are a key range: the
      // `limit`-th bounds the step, so one step never holds SQLite's thread long.
      let bounding = trx.selectFrom('export_members').select(['k1', 'k2', 'person_id']).where('job_id', '=', jobId).where('run', '=', run);
      if (past) bounding = bounding.where(past);
      const bound = await bounding.orderBy('k1').orderBy('k2').orderBy('person_id').limit(1).offset(limit - 1).executeTakeFirst();
      let drop = trx.deleteFrom('export_members').where('job_id', '=', jobId).where('run', '=', run);
      if (past) drop = drop.where(past);
      if (bound) drop = drop.where(sql<boolean>`(k1, k2, person_id) <= (${bound.k1}, ${bound.k2}, ${bound.person_id})`);
      const { numDeletedRows } = await drop.executeTakeFirst();
      if (bound) return { run, key: bound };
      // The run's last members are gone: the next step starts on the next run.
      const next = await this.#runAfter(trx, jobId, run);
      if (numDeletedRows > 0n) return next === undefined ? { run, key: null } : { run: next, key: null };
      if (next === undefined) return undefined;
      at = { run: next, key: null };
    }
  }

  /** The job's lowest run above `run` (the lowest of all when null), or undefined. */
  async #runAfter(trx: Db, jobId: string, run: number | null): Promise<number | undefined> {
    const row = await trx
      .selectFrom('export_members')
      .select('run')
      .where('job_id', '=', jobId)
      .where('run', '>', run ?? -1)
      .orderBy('run')
      .limit(1)
      .executeTakeFirst();
    return row?.run;
  }

  /** Deletes every member of these jobs (jobs past retention). */
  async dropJobs(jobIds: string[], trx: Db): Promise<void> {
    await trx.deleteFrom('export_members').where('job_id', 'in', jobIds).execute();
  }
}
