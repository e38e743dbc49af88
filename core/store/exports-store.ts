import { sql, type Selectable } from 'kysely';
import type { ExportPerson } from '../exports/columns.ts';
import type { Person } from '../resources/types.ts';
import type { ExportFilters } from '../exports/filters.ts';
import type { Site } from '../scope/view.ts';
import { attributedSite, selectionConditions, sortKeys } from './export-selection.ts';
import { personJsonSql, withSite } from './person-row.ts';
import { CompiledQueries } from './compiled-queries.ts';
import { dialectOf } from './dialect/index.ts';
import type { Db, ExportJobsTable } from './schema.ts';

/** An export job row. */
export type ExportJob = Selectable<ExportJobsTable>;

/** Where a member sits in its job's file order: its sort keys and person id. */
export interface MemberKey {
  k1: number | string;
  k2: number | string;
  id: string;
}

/** A member as the writer merges it: its place in the file order, and what its row is made of. */
export interface MemberRef extends MemberKey {
  personPk: number;
  sitePk: number;
}

/**
 * Collection steps per sorted run of members. A step inserts its rows in key order within its
 * run, so it rewrites at most the run's pages (about 45 for a run of 2,000 people, eight steps of
 * the default 250 pks), however large the selection; the writer merges 500 runs at a million people.
 */
const STEPS_PER_RUN = 8;

/** How collection's SQL names the people table; collection adds NOT INDEXED after it. */
const PEOPLE_FROM = 'from "people" as "p"';

/** Reads and writes export jobs, their selected people and their CSV chunks. */
export class ExportsStore {
  readonly #queries: CompiledQueries;

  constructor(private readonly db: Db) {
    this.#queries = new CompiledQueries(db);
  }

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
        insert into export_jobs (id, account_id, filters, filename, created_at, status)
        select ${job.id}, ${job.account_id}, ${job.filters}, ${job.filename}, ${job.created_at}, 'processing'
        where (select count(*) from export_jobs where account_id = ${job.account_id} and status = 'processing') < ${maxRunning}
      `.execute(this.db);
      return numAffectedRows === 1n;
    }
    return this.db.transaction().execute(async (trx) => {
      // Under READ COMMITTED two transactions could both count two and both insert. A write to the
      // account's row first makes starts for one account queue here, whatever the process; the
      // count after it reads anew and sees the other start's job. A plain UPDATE rather than
      // FOR UPDATE or an advisory lock: nothing Citus or CockroachDB lack.
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
   * Starts a job's collection: fixes its "now" and the highest people pk, so the walk (and a
   * resumed one) covers the people that existed when it started, each as its pk range is reached.
   */
  async startCollection(job: ExportJob, nowSeconds: number): Promise<void> {
    const { top } = await this.db.selectFrom('people').select((eb) => eb.fn.max('pk').as('top')).executeTakeFirstOrThrow();
    const start = { selected_at: nowSeconds, collect_until_pk: top ?? 0, collect_after_pk: 0, collected: 0, member_count: null, partial: null, next_seq: 0, chunk_count: 0, written_k1: null, written_k2: null, written_id: null };
    await this.db.updateTable('export_jobs').set(start).where('id', '=', job.id).execute();
    Object.assign(job, start);
  }

  /**
   * Collects the selected people among the next `pks` people pks, with their sort keys and
   * attributed site, and records how far collection got in the same transaction, so a run stopped
   * anywhere resumes without repeating or losing anyone. The last step sets `member_count` (at
   * most `cap`) and `partial`. Updates `job` to match.
   */
  async collectStep(job: ExportJob, filters: ExportFilters, sites: Site[], pks: number, cap: number): Promise<void> {
    const from = job.collect_after_pk;
    const to = Math.min(from + pks, job.collect_until_pk!);
    const ctx = { accountId: job.account_id, sites, nowSeconds: job.selected_at! };
    const [k1, k2] = sortKeys(filters);
    const done = await this.db.transaction().execute(async (trx) => {
      const compiled = trx
        .insertInto('export_members')
        .columns(['job_id', 'run', 'k1', 'k2', 'person_id', 'person_pk', 'site_pk'])
        .expression(
          trx
            .selectFrom('people as p')
            .select([sql<string>`${job.id}`.as('job_id'), sql<number>`${Math.floor(from / (pks * STEPS_PER_RUN))}`.as('run'), k1.as('k1'), k2.as('k2'), 'p.id', 'p.pk', attributedSite(filters, sites).as('site_pk')])
            .where('p.pk', '>', from)
            .where('p.pk', '<=', to)
            .where((eb) => selectionConditions(eb, filters, ctx)),
        )
        .compile();
      // Walk the pk range itself. Left to choose, SQLite may read the account's index on
      // account_id (or company_pk) and test each row's pk, making every step as slow as one big
      // statement; NOT INDEXED still lets it seek the range by rowid.
      const walk = compiled.sql.replace(PEOPLE_FROM, `${PEOPLE_FROM} not indexed`);
      if (walk === compiled.sql) throw new Error(`export collection: ${PEOPLE_FROM} not found in ${compiled.sql}`);
      const { numAffectedRows } = await trx.executeQuery({ ...compiled, sql: walk });
      const collected = job.collected + Number(numAffectedRows ?? 0);
      const last = to >= job.collect_until_pk!;
      const progress = { collect_after_pk: to, collected, ...(last ? { member_count: Math.min(collected, cap), partial: collected > cap ? 1 : 0 } : {}) };
      await trx.updateTable('export_jobs').set(progress).where('id', '=', job.id).execute();
      return progress;
    });
    Object.assign(job, done);
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
   */
  async runMembers(jobId: string, run: number, descending: boolean, after: MemberKey | null, limit: number): Promise<MemberRef[]> {
    const shape = `members:run:${descending ? 'desc' : 'asc'}:${after ? 'next' : 'first'}`;
    const values = after ? { jobId, run, limit, k1: after.k1, k2: after.k2, id: after.id } : { jobId, run, limit };
    const rows = await this.#queries.rows(
      shape,
      (p) => {
        const direction = descending ? 'desc' : 'asc';
        let query = this.db
          .selectFrom('export_members')
          .select(['k1', 'k2', 'person_id', 'person_pk', 'site_pk'])
          .where('job_id', '=', p('jobId'))
          .where('run', '=', p('run'))
          .orderBy('k1', direction)
          .orderBy('k2', direction)
          .orderBy('person_id', direction)
          .limit(p('limit'));
        if (after) query = query.where(sql<boolean>`(k1, k2, person_id) ${sql.raw(descending ? '<' : '>')} (${p('k1')}, ${p('k2')}, ${p('id')})`);
        return query;
      },
      values,
    );
    return rows.map((r) => ({ k1: r.k1, k2: r.k2, id: r.person_id, personPk: r.person_pk, sitePk: r.site_pk }));
  }

  /** The export rows of `members`, in their order: each person as the API shows them, attributed to the member's site. */
  async rows(members: MemberRef[]): Promise<ExportPerson[]> {
    // Run thousands of times per export: compiled once; the members travel as one JSON parameter.
    const rows = await this.#queries.rows(
      'members:rows',
      (p) =>
        this.db
          .selectFrom(sql<{ key: number; value: string }>`json_each(${p('members')})`.as('j'))
          .innerJoin('people as p', (join) => join.on(sql.ref('p.pk'), '=', sql`json_extract(j.value, '$[0]')`))
          .innerJoin('sites as s', (join) => join.on(sql.ref('s.pk'), '=', sql`json_extract(j.value, '$[1]')`))
          .leftJoin('companies as c', 'c.pk', 'p.company_pk')
          .select([personJsonSql('p', dialectOf(this.db)).as('json'), 's.domain', 's.client_ref', 'p.campaign', 'p.crm_status'])
          .orderBy(sql`j.key`),
      { members: JSON.stringify(members.map((m) => [m.personPk, m.sitePk])) },
    );
    if (rows.length !== members.length) throw new Error(`export rows: ${members.length} members gave ${rows.length} rows`);
    return rows.map((r) => ({
      person: JSON.parse(withSite(r.json, { domain: r.domain, clientRef: r.client_ref })) as Person,
      campaign: r.campaign,
      crmStatus: r.crm_status,
    }));
  }

  /** Where a job's writing resumes: the sort key of the last row in its file, or null before the first. */
  static writtenKey(job: ExportJob): MemberKey | null {
    return job.written_id === null ? null : { k1: job.written_k1!, k2: job.written_k2!, id: job.written_id };
  }

  /** Appends a piece of the file and records how far the job got, atomically, so a resumed run neither repeats nor skips rows. */
  async appendChunk(job: ExportJob, data: string, written: number, last: MemberKey | null): Promise<void> {
    const position = { next_seq: written, chunk_count: job.chunk_count + 1, ...(last ? { written_k1: last.k1, written_k2: last.k2, written_id: last.id } : {}) };
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('export_chunks').values({ job_id: job.id, seq: job.chunk_count, data }).execute();
      await trx.updateTable('export_jobs').set(position).where('id', '=', job.id).execute();
    });
    Object.assign(job, position);
  }

  /** Marks a job complete. Its members stay until {@link dropStep} has removed them. */
  async complete(id: string, completedAt: number, rowCount: number): Promise<void> {
    await this.db.updateTable('export_jobs').set({ status: 'complete', completed_at: completedAt, row_count: rowCount }).where('id', '=', id).execute();
  }

  /** Marks a job failed with a reason. What it had collected and written is left to {@link dropStep}. */
  async fail(id: string, error: string): Promise<void> {
    await this.db.updateTable('export_jobs').set({ status: 'failed', error }).where('id', '=', id).where('status', '=', 'processing').execute();
  }

  /**
   * Removes a finished job's leftovers a bounded step at a time (a million members or a failed
   * file's chunks deleted in one statement would hold the serving thread): one run of its members
   * (a few thousand at most) and, for a failed job, up to `chunks` chunks. False once nothing is left.
   */
  async dropStep(job: Pick<ExportJob, 'id' | 'status'>, chunks: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      // A whole run at a time: its rows are contiguous in the primary key.
      const first = trx.selectFrom('export_members').select((eb) => eb.fn.min('run').as('run')).where('job_id', '=', job.id);
      const m = await trx.deleteFrom('export_members').where('job_id', '=', job.id).where('run', '=', first).executeTakeFirst();
      let c = 0n;
      if (job.status === 'failed') {
        const first = trx.selectFrom('export_chunks').select('seq').where('job_id', '=', job.id).orderBy('seq').limit(chunks);
        c = (await trx.deleteFrom('export_chunks').where('job_id', '=', job.id).where('seq', 'in', first).executeTakeFirst()).numDeletedRows;
      }
      return m.numDeletedRows + c > 0n;
    });
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
      await trx.deleteFrom('export_members').where('job_id', 'in', ids).execute();
      await trx.deleteFrom('export_jobs').where('id', 'in', ids).execute();
    });
    return ids.length;
  }
}
