import { sql } from 'kysely';
import { EXPORT_ROW_COLUMNS, type ExportRow } from '../exports/columns.ts';
import type { ExportFilters } from '../exports/filters.ts';
import type { Site } from '../scope/view.ts';
import { CompiledQueries } from './compiled-queries.ts';
import { dialectOf, type SqlDialect } from './dialect/index.ts';
import { attributedSite, selectionConditions, sortKeys } from './export-selection.ts';
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

/** How far a collection step got, as the job row records it. */
export interface CollectProgress {
  collect_after_pk: number;
  collected: number;
  member_count?: number;
  partial?: number;
}

/**
 * Collection steps per sorted run of members (where the dialect keeps sorted runs). A step inserts
 * its rows in key order within its run, so it rewrites at most the run's pages (about 45 for a run
 * of 2,000 people, eight steps of the default 250 pks), however large the selection.
 */
const STEPS_PER_RUN = 16;

/** How collection's SQL names the people table (the dialect may add a hint after it). */
const PEOPLE_FROM = 'from "people" as "p"';

/**
 * The people an export job selected ("members"), with their sort keys and attributed site, and
 * the rows the writer reads for them. Members are collected in steps over the people's pks and
 * kept in sorted runs (see the dialect's `exportKeys.sortedRuns`), which the writer merges.
 */
export class ExportMembersStore {
  readonly #queries: CompiledQueries;
  readonly #dialect: SqlDialect;

  constructor(private readonly db: Db) {
    this.#queries = new CompiledQueries(db);
    this.#dialect = dialectOf(db);
  }

  /**
   * Collects the selected people among the people pks after `job.collect_after_pk` (up to `pks`
   * of them), with their sort keys and attributed site, and calls `record` with how far collection
   * got inside the same transaction, so a run stopped anywhere resumes without repeating or losing
   * anyone. The last step also sets `member_count` (at most `cap`) and `partial`.
   */
  async collectStep(job: ExportJob, filters: ExportFilters, sites: Site[], pks: number, cap: number, record: (trx: Db, progress: CollectProgress) => Promise<void>): Promise<CollectProgress> {
    const from = job.collect_after_pk;
    const to = Math.min(from + pks, job.collect_until_pk!);
    const ctx = { accountId: job.account_id, sites, nowSeconds: job.selected_at! };
    const [k1, k2] = sortKeys(filters, this.#dialect.exportKeys);
    const run = this.#dialect.exportKeys.sortedRuns ? Math.floor(from / (pks * STEPS_PER_RUN)) : 0;
    return this.db.transaction().execute(async (trx) => {
      // A step lost in a crash is collected again.
      await this.#dialect.relaxCommit(trx);
      const compiled = trx
        .insertInto('export_members')
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
      const collected = job.collected + Number(numAffectedRows ?? 0);
      const last = to >= job.collect_until_pk!;
      const progress: CollectProgress = { collect_after_pk: to, collected, ...(last ? { member_count: Math.min(collected, cap), partial: collected > cap ? 1 : 0 } : {}) };
      await record(trx, progress);
      return progress;
    });
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
   * Up to `limit` members of one run after `after` (from its start when null) in file order: a
   * seek into the members' primary key, which keeps each run sorted.
   *
   * This and {@link rows} read their rows as one JSON text a query: the merge holds what it reads
   * across steps, and rows the driver hands over one by one (objects, or pg's arrays of fields)
   * made V8 take their allocation sites for long-lived and allocate every later one, and the
   * strings they hold, in its old generation, garbage until a full collection (+60 MB over an
   * export of 100,000 people on Postgres). One text a query is also a single crossing of the
   * driver, and JSON.parse makes plain arrays.
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

  /** The stored rows of these people (by pk), in no particular order: what their CSV lines are made of. */
  async rows(personPks: number[]): Promise<ExportRow[]> {
    const values: Record<string, number> = {};
    personPks.forEach((pk, i) => (values[`pk${i}`] = pk));
    // Run thousands of times per export: compiled once per batch size (one or two sizes a job).
    const [row] = await this.#queries.rows(
      `members:rows:${personPks.length}`,
      (p) =>
        this.db
          .selectFrom('people as p')
          .leftJoin('companies as c', 'c.pk', 'p.company_pk')
          .select(this.#dialect.orderedConcat(this.#dialect.jsonArray(EXPORT_ROW_COLUMNS.map((column) => sql.ref(column))), ',', sql`p.pk`).as('rows'))
          .where('p.pk', 'in', personPks.map((_, i) => p(`pk${i}`))),
      values,
    );
    return row?.rows ? (JSON.parse(`[${row.rows}]`) as ExportRow[]) : [];
  }

  /** Deletes one run of a job's members (the lowest left); false once none is left. */
  async dropRun(jobId: string, trx: Db = this.db): Promise<boolean> {
    // A whole run at a time: its rows are contiguous in the primary key.
    const first = trx.selectFrom('export_members').select((eb) => eb.fn.min('run').as('run')).where('job_id', '=', jobId);
    const { numDeletedRows } = await trx.deleteFrom('export_members').where('job_id', '=', jobId).where('run', '=', first).executeTakeFirst();
    return numDeletedRows > 0n;
  }

  /** Deletes every member of these jobs (jobs past retention). */
  async dropJobs(jobIds: string[], trx: Db): Promise<void> {
    await trx.deleteFrom('export_members').where('job_id', 'in', jobIds).execute();
  }
}
