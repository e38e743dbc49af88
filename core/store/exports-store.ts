import { sql, type Selectable } from 'kysely';
import type { ExportPerson } from '../exports/columns.ts';
import type { Person } from '../resources/types.ts';
import type { ExportFilters } from '../exports/filters.ts';
import type { Site } from '../scope/view.ts';
import { attributedSite, selectionConditions, selectionOrder } from './export-selection.ts';
import { personJsonSql, withSite } from './person-row.ts';
import { CompiledQueries } from './compiled-queries.ts';
import type { Db, ExportJobsTable } from './schema.ts';

/** An export job row. */
export type ExportJob = Selectable<ExportJobsTable>;

/** Reads and writes export jobs, their selected people and their CSV chunks. */
export class ExportsStore {
  readonly #queries: CompiledQueries;

  constructor(private readonly db: Db) {
    this.#queries = new CompiledQueries(db);
  }

  /**
   * Creates a job unless the account already runs `maxRunning`; the count and the insert share
   * one transaction, so concurrent starts cannot both take the last slot. False when refused.
   */
  async createIfSlotFree(job: Pick<ExportJob, 'id' | 'account_id' | 'filters' | 'filename' | 'created_at'>, maxRunning: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const { n } = await trx
        .selectFrom('export_jobs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', job.account_id)
        .where('status', '=', 'processing')
        .executeTakeFirstOrThrow();
      if (n >= maxRunning) return false;
      await trx.insertInto('export_jobs').values({ ...job, status: 'processing' }).execute();
      return true;
    });
  }

  /** A job by id, only within its account. */
  async find(accountId: string, id: string): Promise<ExportJob | undefined> {
    return this.db.selectFrom('export_jobs').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  }

  /** A job by id, whatever its account (for signed download links, which carry no key). */
  async findAny(id: string): Promise<ExportJob | undefined> {
    return this.db.selectFrom('export_jobs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Ids of jobs left `processing` (for example by a crash), oldest first. */
  async processingIds(): Promise<string[]> {
    const rows = await this.db.selectFrom('export_jobs').select('id').where('status', '=', 'processing').orderBy('created_at').execute();
    return rows.map((r) => r.id);
  }

  /** Counts a new run of a job and returns how many runs it has had. */
  async countAttempt(id: string): Promise<number> {
    const row = await this.db.updateTable('export_jobs').set((eb) => ({ attempts: eb('attempts', '+', 1) })).where('id', '=', id).returning('attempts').executeTakeFirstOrThrow();
    return row.attempts;
  }

  /**
   * Snapshots the people the filters select, in file order, up to `cap` rows, in one statement.
   * Returns how many there are and whether more matched than the cap allowed.
   */
  async select(job: ExportJob, filters: ExportFilters, sites: Site[], nowSeconds: number, cap: number): Promise<{ count: number; partial: boolean }> {
    return this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('export_members').where('job_id', '=', job.id).execute();
      const ctx = { accountId: job.account_id, sites, nowSeconds };
      const order = selectionOrder(filters);
      await trx
        .insertInto('export_members')
        .columns(['job_id', 'seq', 'person_pk', 'site_pk'])
        .expression(
          trx
            .selectFrom('people as p')
            .select([sql.lit(job.id).as('job_id'), sql<number>`row_number() over (order by ${order}) - 1`.as('seq'), 'p.pk', attributedSite(filters, sites).as('site_pk')])
            .where((eb) => selectionConditions(eb, filters, ctx))
            .orderBy(order)
            .limit(cap + 1),
        )
        .execute();
      const { n } = await trx.selectFrom('export_members').select((eb) => eb.fn.countAll<number>().as('n')).where('job_id', '=', job.id).executeTakeFirstOrThrow();
      const partial = n > cap;
      if (partial) await trx.deleteFrom('export_members').where('job_id', '=', job.id).where('seq', '>=', cap).execute();
      const count = Math.min(n, cap);
      await trx.updateTable('export_jobs').set({ member_count: count, partial: partial ? 1 : 0, next_seq: 0, chunk_count: 0 }).where('id', '=', job.id).execute();
      await trx.deleteFrom('export_chunks').where('job_id', '=', job.id).execute();
      return { count, partial };
    });
  }

  /** Selected people `from` ≤ seq < `to`, in file order, as export rows. */
  async members(jobId: string, from: number, to: number): Promise<ExportPerson[]> {
    // Run thousands of times per export: compiled once.
    const rows = await this.#queries.rows(
      'members',
      (p) =>
        this.db
          .selectFrom('export_members as m')
          .innerJoin('people as p', 'p.pk', 'm.person_pk')
          .leftJoin('companies as c', 'c.pk', 'p.company_pk')
          .innerJoin('sites as s', 's.pk', 'm.site_pk')
          .select([personJsonSql('p').as('json'), 's.domain', 's.client_ref', 'p.campaign', 'p.crm_status'])
          .where('m.job_id', '=', p('jobId'))
          .where('m.seq', '>=', p('from'))
          .where('m.seq', '<', p('to'))
          .orderBy('m.seq'),
      { jobId, from, to },
    );
    return rows.map((r) => ({
      person: JSON.parse(withSite(r.json, { domain: r.domain, clientRef: r.client_ref })) as Person,
      campaign: r.campaign,
      crmStatus: r.crm_status,
    }));
  }

  /** Appends a piece of the file and records how far the job got, atomically, so a resumed run neither repeats nor skips rows. */
  async appendChunk(job: ExportJob, data: string, nextSeq: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('export_chunks').values({ job_id: job.id, seq: job.chunk_count, data }).execute();
      await trx.updateTable('export_jobs').set({ next_seq: nextSeq, chunk_count: job.chunk_count + 1 }).where('id', '=', job.id).execute();
    });
    job.chunk_count += 1;
    job.next_seq = nextSeq;
  }

  /** Marks a job complete and drops its selection, which the file now holds. */
  async complete(id: string, completedAt: number, rowCount: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.updateTable('export_jobs').set({ status: 'complete', completed_at: completedAt, row_count: rowCount }).where('id', '=', id).execute();
      await trx.deleteFrom('export_members').where('job_id', '=', id).execute();
    });
  }

  /** Marks a job failed with a reason, dropping what it had written. */
  async fail(id: string, error: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.updateTable('export_jobs').set({ status: 'failed', error }).where('id', '=', id).where('status', '=', 'processing').execute();
      await trx.deleteFrom('export_members').where('job_id', '=', id).execute();
      await trx.deleteFrom('export_chunks').where('job_id', '=', id).execute();
    });
  }

  /** One piece of a job's file, or undefined past the end. */
  async chunk(jobId: string, seq: number): Promise<string | undefined> {
    const row = await this.db.selectFrom('export_chunks').select('data').where('job_id', '=', jobId).where('seq', '=', seq).executeTakeFirst();
    return row?.data;
  }

  /** Deletes jobs created at or before `cutoff`, with their rows and files. */
  async removeCreatedBy(cutoff: number): Promise<number> {
    const old = await this.db.selectFrom('export_jobs').select('id').where('created_at', '<=', cutoff).execute();
    if (old.length === 0) return 0;
    const ids = old.map((r) => r.id);
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('export_chunks').where('job_id', 'in', ids).execute();
      await trx.deleteFrom('export_members').where('job_id', 'in', ids).execute();
      await trx.deleteFrom('export_jobs').where('id', 'in', ids).execute();
    });
    return ids.length;
  }
}
