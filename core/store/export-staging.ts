/*
 * Collection through a staging table, for dialects that keep members in sorted runs (SQLite): a
 * run is staged in a temporary table (no WAL), then moved into `export_members` in key order, so
 * each slice appends to the run instead of rewriting its pages at random.
 */
import { sql } from 'kysely';
import type { ExportJob } from './exports-store.ts';
import type { Db } from './schema.ts';

/** A table a collection step's people go into: the run itself, or its staging. */
export type CollectTable = 'export_members' | 'export_staging';

/** How far a collection step got, as the job row records it. */
export interface CollectProgress {
  collect_after_pk: number;
  collected: number;
  member_count?: number;
  partial?: number;
}

/** Inserts the selected people among pks (from, to] into `table`, tagged with `run`; how many. */
export type SelectInto = (trx: Db, table: CollectTable, run: number, from: number, to: number) => Promise<number>;

/** The run a job is collecting on this connection. */
interface Staging {
  run: number;
  /** Its last people pk: it takes the pks after the job's `collect_after_pk` up to this one. */
  end: number;
  /** The pks staged so far reach up to this one. */
  stagedTo: number;
  /** Members moved into `export_members` so far. */
  moved: number;
}

/**
 * Collects jobs' runs through the connection's staging table. Only moves are progress: the job
 * records a run (its `collect_after_pk` and `collected`) with the move that ends it, so a run cut
 * short anywhere is staged and moved again from its start after {@link begin}.
 */
export class StagedRuns {
  readonly #jobs = new Map<string, Staging>();

  constructor(private readonly db: Db) {}

  /** Starts or resumes collecting a job here: forgets what was staged for it, and the members of a run left half moved. */
  async begin(job: ExportJob, runPks: number): Promise<void> {
    this.#jobs.delete(job.id);
    await this.db.schema
      .createTable('export_staging')
      .temporary()
      .ifNotExists()
      .addColumn('job_id', 'text', (c) => c.notNull())
      .addColumn('run', 'integer', (c) => c.notNull())
      .addColumn('k1', 'blob', (c) => c.notNull())
      .addColumn('k2', 'blob', (c) => c.notNull())
      .addColumn('person_id', 'text', (c) => c.notNull())
      .addColumn('person_pk', 'integer', (c) => c.notNull())
      .addColumn('site_pk', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('export_staging_pk', ['job_id', 'run', 'k1', 'k2', 'person_id'])
      .modifyEnd(sql`without rowid`)
      .execute();
    await this.db.deleteFrom('export_staging').where('job_id', '=', job.id).execute();
    const after = job.collect_after_pk;
    await this.db.deleteFrom('export_members').where('job_id', '=', job.id).where('run', '>=', Math.floor(after / runPks)).where('person_pk', '>', after).execute();
  }

  /**
   * One step: stages the next `pks` people pks of the job's run, or once the run is staged, moves
   * up to `pks` staged members into it in key order; the move that empties the staging records
   * the run's progress through `record`, in its transaction (the last run's also sets
   * `member_count`, at most `cap`, and `partial`).
   */
  async step(
    job: ExportJob,
    sizes: { pks: number; runPks: number; cap: number },
    selectInto: SelectInto,
    record: (trx: Db, progress: CollectProgress) => Promise<void>,
  ): Promise<CollectProgress> {
    let staging = this.#jobs.get(job.id);
    if (!staging) {
      const run = Math.floor(job.collect_after_pk / sizes.runPks);
      staging = { run, end: Math.min((run + 1) * sizes.runPks, job.collect_until_pk!), stagedTo: job.collect_after_pk, moved: 0 };
      this.#jobs.set(job.id, staging);
    }
    const unchanged = { collect_after_pk: job.collect_after_pk, collected: job.collected };
    try {
      if (staging.stagedTo < staging.end) {
        const to = Math.min(staging.stagedTo + sizes.pks, staging.end);
        await selectInto(this.db, 'export_staging', staging.run, staging.stagedTo, to);
        staging.stagedTo = to;
        return unchanged;
      }
      const current = staging;
      return await this.db.transaction().execute(async (trx) => {
        const moved = await this.#move(trx, job.id, sizes.pks);
        if (moved === sizes.pks) {
          // The same position, recorded to renew the lease and to fail if another runner took the job.
          await record(trx, unchanged);
          current.moved += moved;
          return unchanged;
        }
        const collected = job.collected + current.moved + moved;
        const last = current.end >= job.collect_until_pk!;
        const progress: CollectProgress = { collect_after_pk: current.end, collected, ...(last ? { member_count: Math.min(collected, sizes.cap), partial: collected > sizes.cap ? 1 : 0 } : {}) };
        await record(trx, progress);
        this.#jobs.delete(job.id);
        return progress;
      });
    } catch (error) {
      this.#jobs.delete(job.id);
      throw error;
    }
  }

  /** Moves up to `limit` of a job's staged members, the first in key order, into its run; how many. */
  async #move(trx: Db, jobId: string, limit: number): Promise<number> {
    const staged = () => trx.selectFrom('export_staging').where('job_id', '=', jobId);
    // The `limit`-th staged member bounds the slice; with fewer left, all of them go.
    const bound = await staged().select(['run', 'k1', 'k2', 'person_id']).orderBy('run').orderBy('k1').orderBy('k2').orderBy('person_id').limit(1).offset(limit - 1).executeTakeFirst();
    const upTo = bound ? sql<boolean>`(run, k1, k2, person_id) <= (${bound.run}, ${bound.k1}, ${bound.k2}, ${bound.person_id})` : sql<boolean>`1 = 1`;
    const { numInsertedOrUpdatedRows } = await trx
      .insertInto('export_members')
      .columns([...COLUMNS])
      .expression(staged().select([...COLUMNS]).where(upTo).orderBy('run').orderBy('k1').orderBy('k2').orderBy('person_id'))
      .executeTakeFirst();
    await trx.deleteFrom('export_staging').where('job_id', '=', jobId).where(upTo).execute();
    return Number(numInsertedOrUpdatedRows ?? 0);
  }
}

const COLUMNS = ['job_id', 'run', 'k1', 'k2', 'person_id', 'person_pk', 'site_pk'] as const;
