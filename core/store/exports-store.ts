import { sql, type Selectable, type Updateable } from 'kysely';
import { siteCsvCells } from '../exports/columns.ts';
import type { ExportFilters } from '../exports/filters.ts';
import { dialectOf } from './dialect/index.ts';
import { writeWholeFile } from './export-whole-file.ts';
import { SitesStore } from './sites-store.ts';
import type { CollectProgress, ExportMembersStore, MemberKey, MemberPosition } from './export-members-store.ts';
import type { Db, ExportJobsTable } from './schema.ts';

/** An export job row. */
export type ExportJob = Selectable<ExportJobsTable>;

/** Who holds a job and until when: every write of a run's progress carries it, and renews it. */
export interface Lease {
  owner: string;
  /** Epoch seconds of the lease clock (the system's, whatever an admin did to the API's clock). */
  until: number;
}

/** Where a job's cleanup stopped: the last member and chunk it deleted (null: none yet). */
export interface DropPosition {
  member: MemberPosition | null;
  chunk: number | null;
}

/** Thrown when a run's lease was taken over (it expired while the run was held up): the run stops, writing nothing more. */
export class LostLease extends Error {
  constructor(jobId: string) {
    super(`export ${jobId}: its lease was taken over by another runner`);
  }
}

/** Reads and writes export jobs, their leases and their CSV chunks. */
export class ExportsStore {
  constructor(
    private readonly db: Db,
    readonly members: ExportMembersStore,
  ) {}

  /**
   * Creates a job unless the account already runs `maxRunning`; the count and the insert are one
   * atomic step, so concurrent starts, in any process, cannot both take the last slot. False when refused.
   */
  async createIfSlotFree(job: Pick<ExportJob, 'id' | 'account_id' | 'filters' | 'filename' | 'created_at'>, maxRunning: number): Promise<boolean> {
    if (dialectOf(this.db).name === 'sqlite') {
      // One statement: SQLite takes its write lock before the statement reads, so the count and
      // the insert are one step for every process on the file. (A transaction reading first could
      // not write after another process had: SQLITE_BUSY, a 500.)
      const { numAffectedRows } = await sql`
        insert into ${sql.table('export_jobs')} (id, account_id, filters, filename, created_at, status)
        select ${job.id}, ${job.account_id}, ${job.filters}, ${job.filename}, ${job.created_at}, 'processing'
        where (select count(*) from ${sql.table('export_jobs')} where account_id = ${job.account_id} and status = 'processing') < ${maxRunning}
      `.execute(this.db);
      return numAffectedRows === 1n;
    }
    return this.db.transaction().execute(async (trx) => {
      // Writing the account's row first queues concurrent starts for one account, so the count
      // after it sees the other start's job; a plain UPDATE works on Citus and CockroachDB too.
      await trx.updateTable('accounts').set((eb) => ({ name: eb.ref('name') })).where('id', '=', job.account_id).execute();
      const { n } = await trx
        .selectFrom('export_jobs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', job.account_id)
        .where('status', '=', 'processing')
        .executeTakeFirstOrThrow();
      if (Number(n) >= maxRunning) return false;
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

  /** Ids of `processing` jobs no runner holds (never claimed, released, or whose lease ran out by `nowSeconds`), oldest first. */
  async claimableIds(nowSeconds: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('export_jobs')
      .select('id')
      .where('status', '=', 'processing')
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', nowSeconds)]))
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map((r) => r.id);
  }

  /**
   * Claims a `processing` job for a run unless another runner holds an unexpired lease on it, and
   * counts the run. One conditional update: of runners claiming at once, in any process, one
   * wins. The runs the job has had, or undefined when it was not claimed. A runner taking back
   * its own job (after the database was out) goes on with the same run.
   */
  async claim(id: string, lease: Lease, nowSeconds: number): Promise<number | undefined> {
    const row = await this.db
      .updateTable('export_jobs')
      .set((eb) => ({
        lease_owner: lease.owner,
        lease_until: lease.until,
        attempts: eb.case().when('lease_owner', '=', lease.owner).then(eb.ref('attempts')).else(eb('attempts', '+', 1)).end(),
      }))
      .where('id', '=', id)
      .where('status', '=', 'processing')
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', nowSeconds), eb('lease_owner', '=', lease.owner)]))
      .returning('attempts')
      .executeTakeFirst();
    return row?.attempts;
  }

  /** Gives a held job back (a runner stopping), so the next runner need not wait for the lease to run out. */
  async release(id: string, owner: string): Promise<void> {
    await this.db.updateTable('export_jobs').set({ lease_owner: null, lease_until: null }).where('id', '=', id).where('lease_owner', '=', owner).execute();
  }

  /**
   * Starts a job's collection: fixes its "now" and the highest people pk, so the walk (and a
   * resumed one) covers the people that existed when it started, each as its pk range is reached.
   */
  async startCollection(job: ExportJob, nowSeconds: number, lease: Lease): Promise<void> {
    const { top } = await this.db.selectFrom('people').select((eb) => eb.fn.max('pk').as('top')).executeTakeFirstOrThrow();
    const start = { selected_at: nowSeconds, collect_until_pk: top ?? 0, collect_after_pk: 0, collected: 0, member_count: null, partial: null, next_seq: 0, chunk_count: 0, written_k1: null, written_k2: null, written_id: null };
    await this.#advance(this.db, job.id, lease, start);
    Object.assign(job, start);
  }

  /** One collection step (see {@link ExportMembersStore.collectStep}), its progress recorded under the lease. Updates `job`. */
  async collectStep(job: ExportJob, step: (record: (trx: Db, progress: CollectProgress) => Promise<void>) => Promise<CollectProgress>, lease: Lease): Promise<void> {
    const progress = await step((trx, p) => this.#advance(trx, job.id, lease, p));
    Object.assign(job, progress);
  }

  /** Where a job's writing resumes: the sort key of the last row in its file, or null before the first. */
  static writtenKey(job: ExportJob): MemberKey | null {
    return job.written_id === null ? null : { k1: job.written_k1!, k2: job.written_k2!, person_id: job.written_id };
  }

  /**
   * Appends pieces of the file and records how far the job got, atomically, so a resumed run
   * neither repeats nor skips rows. Several pieces a transaction save commits; each stays small.
   */
  async appendChunks(job: ExportJob, chunks: string[], written: number, last: MemberKey | null, lease: Lease): Promise<void> {
    const position = { next_seq: written, chunk_count: job.chunk_count + chunks.length, ...(last ? { written_k1: last.k1, written_k2: last.k2, written_id: last.person_id } : {}) };
    await this.db.transaction().execute(async (trx) => {
      await dialectOf(trx).relaxCommit(trx);
      // The position first: a runner whose lease was taken over writes no chunk.
      await this.#advance(trx, job.id, lease, position);
      await trx.insertInto('export_chunks').values(chunks.map((data, i) => ({ job_id: job.id, seq: job.chunk_count + i, data }))).execute();
    });
    Object.assign(job, position);
  }

  /**
   * Writes the job's whole file inside the database in one repeatable-read transaction
   * (export-whole-file.ts) and records it under the lease; chunks a stepwise run left go first.
   * `lease` gives the lease as it stands when asked, as the statement may outlast it. Updates `job`.
   */
  async writeWholeFile(job: ExportJob, filters: ExportFilters, sizes: { rowsPerChunk: number; cap: number; header: string }, nowSeconds: number, lease: () => Lease): Promise<void> {
    const written = await this.db.transaction().setIsolationLevel('repeatable read').execute(async (trx) => {
      await this.#advance(trx, job.id, lease(), {});
      if (job.chunk_count > 0) await trx.deleteFrom('export_chunks').where('job_id', '=', job.id).execute();
      const sites = await new SitesStore(trx).list(job.account_id);
      const file = await writeWholeFile(trx, {
        jobId: job.id,
        filters,
        selection: { accountId: job.account_id, sites, nowSeconds },
        siteCells: new Map(sites.map((s) => [s.pk, siteCsvCells(s)])),
        ...sizes,
      });
      // A line that could not be formed would be left out of its chunk without a word.
      if (file.unformed > 0) throw new Error(`export ${job.id}: the lines of ${file.unformed} of its people could not be formed (a site the account does not have, or stored cells missing)`);
      if (file.rows === 0) await trx.insertInto('export_chunks').values({ job_id: job.id, seq: 0, data: sizes.header }).execute();
      const chunks = Math.max(file.chunks, 1);
      const position = { selected_at: nowSeconds, member_count: file.rows, partial: file.selected > sizes.cap ? 1 : 0, next_seq: file.rows, chunk_count: chunks, written_k1: null, written_k2: null, written_id: null };
      await this.#advance(trx, job.id, lease(), position);
      return position;
    });
    Object.assign(job, written);
  }

  /** Marks a held job complete and frees it. Its members stay until {@link dropStep} has removed them. */
  async complete(id: string, completedAt: number, rowCount: number, lease: Lease): Promise<void> {
    await this.#advance(this.db, id, lease, { status: 'complete', completed_at: completedAt, row_count: rowCount, lease_owner: null, lease_until: null });
  }

  /**
   * Marks a job failed with a reason, if it is still processing (and held by `owner`, when given).
   * What it had collected and written is left to {@link dropStep}.
   */
  async fail(id: string, error: string, owner?: string): Promise<void> {
    let query = this.db.updateTable('export_jobs').set({ status: 'failed', error, lease_owner: null, lease_until: null }).where('id', '=', id).where('status', '=', 'processing');
    if (owner !== undefined) query = query.where('lease_owner', '=', owner);
    await query.execute();
  }

  /** Writes a run's progress on a job it holds, renewing the lease; throws LostLease when another runner holds it now. */
  async #advance(trx: Db, id: string, lease: Lease, values: Updateable<ExportJobsTable>): Promise<void> {
    const { numUpdatedRows } = await trx
      .updateTable('export_jobs')
      .set({ lease_until: lease.until, ...values })
      .where('id', '=', id)
      .where('lease_owner', '=', lease.owner)
      .executeTakeFirst();
    if (numUpdatedRows === 0n) throw new LostLease(id);
  }

  /**
   * Removes a finished job's leftovers a bounded step at a time, so SQLite's serving thread is never
   * held long: up to `members` members and, for a failed job, `chunks` chunks, after `from` (none at
   * first). Returns where this step stopped, or undefined once nothing is left.
   */
  async dropStep(job: Pick<ExportJob, 'id' | 'status'>, sizes: { members: number; chunks: number }, from?: DropPosition): Promise<DropPosition | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const member = await this.members.dropMembers(job.id, sizes.members, from?.member ?? null, trx);
      let chunk: number | null | undefined;
      if (job.status === 'failed') chunk = await this.#dropChunks(trx, job.id, sizes.chunks, from?.chunk ?? null);
      if (member === undefined && chunk === undefined) return undefined;
      return { member: member ?? from?.member ?? null, chunk: chunk ?? from?.chunk ?? null };
    });
  }

  /** Deletes up to `limit` of a failed job's chunks after seq `after`, as dropMembers deletes members; the last seq deleted, or undefined when none was. */
  async #dropChunks(trx: Db, jobId: string, limit: number, after: number | null): Promise<number | null | undefined> {
    const past = sql<boolean>`seq > ${after ?? -1}`;
    const bound = await trx.selectFrom('export_chunks').select('seq').where('job_id', '=', jobId).where(past).orderBy('seq').limit(1).offset(limit - 1).executeTakeFirst();
    let drop = trx.deleteFrom('export_chunks').where('job_id', '=', jobId).where(past);
    if (bound) drop = drop.where('seq', '<=', bound.seq);
    const { numDeletedRows } = await drop.executeTakeFirst();
    if (numDeletedRows === 0n) return undefined;
    return bound ? bound.seq : after;
  }

  /** Finished jobs that still hold members, or failed ones that still hold chunks (left by a stop or crash mid-cleanup). */
  async withLeftovers(): Promise<ExportJob[]> {
    return this.db
      .selectFrom('export_jobs as j')
      .selectAll('j')
      .where('j.status', '<>', 'processing')
      .where((eb) =>
        eb.or([
          eb.exists(eb.selectFrom('export_members as m').select('m.job_id').whereRef('m.job_id', '=', 'j.id')),
          eb.and([eb('j.status', '=', 'failed'), eb.exists(eb.selectFrom('export_chunks as c').select('c.job_id').whereRef('c.job_id', '=', 'j.id'))]),
        ]),
      )
      .execute();
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
      await this.members.dropJobs(ids, trx);
      await trx.deleteFrom('export_jobs').where('id', 'in', ids).execute();
    });
    return ids.length;
  }
}
