import { toHex } from '../auth/api-key.ts';
import { keyOf, type MemberRef } from '../store/export-members-store.ts';
import { isDescending } from '../store/export-selection.ts';
import { ExportsStore, LostLease, type DropPosition, type ExportJob, type Lease } from '../store/exports-store.ts';
import { DatabaseUnavailable, retryWhileUnavailable } from '../store/database-unavailable.ts';
import type { SitesStore } from '../store/sites-store.ts';
import type { Clock } from '../time/clock.ts';
import { toEpochSeconds } from '../time/iso.ts';
import { CSV_HEADER, csvLine, siteCsvCells, type StoredCsvRow } from './columns.ts';
import type { ExportFilters } from './filters.ts';
import { scaled, shareOf } from './pace.ts';
import { RunMerge } from './run-merge.ts';


/** Tuning of export runs. */
export interface ExportRunnerOptions {
  /** People written per full step; each step is one small transaction. On PostgreSQL (one statement), `batchRows × chunksPerCommit` is the lines a chunk holds. */
  batchRows: number;
  /** People pks walked per full collection step (the selection is collected before writing starts). */
  collectPks: number;
  /** People pks per sorted run of members, where the database keeps sorted runs (SQLite); the writer merges the runs. */
  runPks: number;
  /** The most rows one file holds; a job that selects more is `partial`. */
  rowCap: number;
  /** About how much CSV text goes into one stored chunk. */
  chunkChars: number;
  /** Chunks written per transaction in a full step (each commit marks the job's progress). */
  chunksPerCommit: number;
  /** Runs a job may start (its first plus resumptions) before it is marked failed. */
  maxAttempts: number;
  /** How long a claim on a job lasts without progress, in seconds of the lease clock; every step renews it. */
  leaseSeconds: number;
  /** How often to look for jobs no runner holds (a process that died, another that stopped), in ms; 0 never. */
  pollIntervalMs: number;
  /**
   * Awaited before each step of a run; by default yields to the event loop. It may resolve to the
   * share of a full step to take next (a number below 1; the default pace asks for a twelfth while
   * requests are being served). Tests hold jobs here.
   */
  pace: () => Promise<number | void>;
  onError: (error: unknown) => void;
}

/**
 * How the file is stored, by default: chunks below V8's large-object size (bigger strings land in
 * the old generation), several a commit in a full step; while requests are served, one a commit.
 */
export const FILE_CHUNKS = { chars: 32 * 1024, perCommit: 4 };

/**
 * The sizes of a full step, by default: small steps keep a step's garbage young and a request
 * waiting behind little; a run of 16 collection steps keeps the merge's fan-in moderate.
 */
export const FULL_STEP = { batchRows: 100, collectPks: 1000, runPks: 16_000 };

/** What a full cleanup step removes: members of a finished job, chunks of a failed one. */
const DROP = { members: 1600, chunks: 64 };

/**
 * Runs export jobs outside the requests that start them: `processing` → `complete` or `failed`.
 * Each step records its progress in its own transaction, so a stopped run resumes exactly; runs
 * are claimed with a lease on `leaseClock` (not the API's adjustable clock), so any process
 * sharing the database may take over a job whose lease ran out.
 */
export class ExportRunner {
  readonly #running = new Map<string, Promise<void>>();
  /** Identifies this runner's leases: random, so two processes never share one. */
  readonly #owner = `run_${toHex(crypto.getRandomValues(new Uint8Array(8)))}`;
  #stopped = false;
  /** The share of a full step the last pace asked for: the size of a step that follows no pace of its own. */
  #share = 1;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly store: ExportsStore,
    private readonly sites: SitesStore,
    private readonly clock: Clock,
    private readonly leaseClock: Clock,
    private readonly options: ExportRunnerOptions,
  ) {}

  /** Starts running a job in the background, unless this runner already runs it (another runner's lease stops it too). */
  start(jobId: string): void {
    if (this.#stopped || this.#running.has(jobId)) return;
    // While the database is out the job stays this runner's, and carries on from its last step.
    const run = retryWhileUnavailable(() => this.#run(jobId), () => this.#stopped)
      .catch((error) => this.options.onError(error))
      .finally(() => this.#running.delete(jobId));
    this.#running.set(jobId, run);
  }

  /** Runs every job no runner holds, and the cleanup of finished jobs left unfinished; then keeps looking every `pollIntervalMs`. */
  async resumeInterrupted(): Promise<void> {
    await this.#look();
    if (this.options.pollIntervalMs > 0 && !this.#timer && !this.#stopped) {
      this.#timer = setInterval(() => void this.#look().catch(this.options.onError), this.options.pollIntervalMs);
      (this.#timer as { unref?: () => void }).unref?.();
    }
  }

  async #look(): Promise<void> {
    if (this.#stopped) return;
    for (const id of await this.store.claimableIds(this.#leaseNow())) this.start(id);
    for (const job of await this.store.withLeftovers()) this.start(job.id);
  }

  /** Resolves when no job is running. */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.all(this.#running.values());
  }

  /** Stops taking steps and gives held jobs back; they stay `processing` and resume on the next start (or in another process). */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.idle();
  }

  /** The API's time, for what the job shows and selects. */
  #now(): number {
    return toEpochSeconds(this.clock.now());
  }

  #leaseNow(): number {
    return toEpochSeconds(this.leaseClock.now());
  }

  /** The lease as this runner renews it now. */
  #lease(): Lease {
    return { owner: this.#owner, until: this.#leaseNow() + this.options.leaseSeconds };
  }

  /** Awaits the pace; the share of a full step to take next. */
  async #pace(): Promise<number> {
    return (this.#share = shareOf(await this.options.pace()));
  }

  async #run(jobId: string): Promise<void> {
    await this.#pace();
    if (this.#stopped) return;
    const found = await this.store.findAny(jobId);
    if (!found) return;
    if (found.status !== 'processing') return await this.#dropLeftovers(found);
    const attempts = await this.store.claim(jobId, this.#lease(), this.#leaseNow());
    if (attempts === undefined) return;
    try {
      if (attempts > this.options.maxAttempts) {
        await this.store.fail(jobId, `The export was interrupted ${this.options.maxAttempts} times and has been abandoned; start a new export.`, this.#owner);
        return await this.#dropLeftovers({ id: jobId, status: 'failed' });
      }
      // Read again under the claim: what a previous holder recorded is where this run resumes.
      const job = (await this.store.findAny(jobId))!;
      if (this.store.members.wholeFile) {
        if (!(await this.#writeWholeFile(job))) return;
      } else {
        if (!(await this.#collect(job))) return;
        if (!(await this.#write(job))) return;
      }
      await this.store.complete(jobId, this.#now(), job.next_seq, this.#lease());
      await this.#dropLeftovers({ id: jobId, status: 'complete' });
    } catch (error) {
      // Another runner holds the job now: what this run recorded stands, and that one goes on from it.
      if (error instanceof LostLease) return;
      if (error instanceof DatabaseUnavailable) throw error;
      this.options.onError(error);
      await this.store.fail(jobId, 'The export failed because of an internal error; start a new export.', this.#owner).catch(this.options.onError);
      // As the job now stands: a fault in a complete job's cleanup must not drop its file.
      const job = await this.store.findAny(jobId).catch(this.options.onError);
      if (job && job.status !== 'processing') await this.#dropLeftovers(job).catch(this.options.onError);
    } finally {
      if (this.#stopped) await this.store.release(jobId, this.#owner).catch(this.options.onError);
    }
  }

  /** Collects the selection in steps, unless done before; false when the runner stopped first. */
  async #collect(job: ExportJob): Promise<boolean> {
    if (job.member_count !== null) return true;
    if (job.collect_until_pk === null) await this.store.startCollection(job, this.#now(), this.#lease());
    await this.store.members.beginCollection(job, this.options.runPks);
    const filters = JSON.parse(job.filters) as ExportFilters;
    const sites = await this.sites.list(job.account_id);
    // The run's first pace stands before the first step.
    for (let first = true; job.member_count === null; first = false) {
      const share = first ? this.#share : await this.#pace();
      if (this.#stopped) return false;
      const { collectPks, runPks, rowCap } = this.options;
      const sizes = { pks: scaled(collectPks, share), runPks, cap: rowCap };
      await this.store.collectStep(job, (record) => this.store.members.collectStep(job, filters, sites, sizes, record), this.#lease());
    }
    return true;
  }

  /**
   * Writes the file in steps: the next members in file order, their rows, their CSV lines. Small
   * batches (short steps, little garbage) go into bigger chunks, and several chunks into one
   * transaction while nothing else runs (a chunk and the position after it are written together).
   * False when the runner stopped first.
   */
  async #write(job: ExportJob): Promise<boolean> {
    const total = job.member_count!;
    if (total === 0 && job.chunk_count === 0) await this.store.appendChunks(job, [CSV_HEADER], 0, null, this.#lease());
    if (job.next_seq >= total) return true;
    const filters = JSON.parse(job.filters) as ExportFilters;
    const sites = new SiteCache(this.sites, job.account_id);
    const merge = await RunMerge.open(this.store.members, job.id, isDescending(filters), ExportsStore.writtenKey(job), () => this.#pace());
    let pending = job.next_seq === 0 ? CSV_HEADER : '';
    const chunks: string[] = [];
    let written = job.next_seq;
    while (written < total) {
      const share = await this.#pace();
      if (this.#stopped) return false;
      const members = await merge.next(Math.min(scaled(this.options.batchRows, share), total - written));
      if (members.length === 0) throw new Error(`export ${job.id}: its members ran out at row ${written} of ${total}`);
      pending += await this.#lines(members, sites);
      written += members.length;
      if (pending.length >= this.options.chunkChars || written === total) {
        chunks.push(pending);
        pending = '';
        // Nothing is pending past the chunks: the position after them is where the file stands.
        if (chunks.length >= scaled(this.options.chunksPerCommit, share) || written === total) {
          await this.store.appendChunks(job, chunks.splice(0), written, keyOf(members[members.length - 1]!), this.#lease());
        }
      }
    }
    return true;
  }

  /**
   * Writes the file inside the database in one statement, where the database can
   * (core/store/export-whole-file.ts): after one pace, one transaction, unless a run before this
   * one committed it. Chunks hold a full step's commit of rows (batchRows × chunksPerCommit).
   * False when the runner stopped first.
   */
  async #writeWholeFile(job: ExportJob): Promise<boolean> {
    if (job.member_count !== null && job.chunk_count > 0 && job.next_seq >= job.member_count) return true;
    await this.#pace();
    if (this.#stopped) return false;
    const sizes = { rowsPerChunk: this.options.batchRows * this.options.chunksPerCommit, cap: this.options.rowCap, header: CSV_HEADER };
    await this.store.writeWholeFile(job, JSON.parse(job.filters) as ExportFilters, sizes, this.#now(), () => this.#lease());
    return true;
  }

  /** The CSV lines of these members, in their order. */
  async #lines(members: MemberRef[], sites: SiteCache): Promise<string> {
    const rows = await this.store.members.rows(members.map((m) => m[3]));
    const byPk = new Map<number, StoredCsvRow>();
    for (const row of rows) byPk.set(row[0], row);
    let lines = '';
    for (const m of members) {
      const row = byPk.get(m[3]);
      if (!row) throw new Error(`export: person ${m[2]} (pk ${m[3]}) has no row`);
      // Awaited only on a miss: an await per row was a microtask per row.
      lines += csvLine(row, sites.cached(m[4]) ?? (await sites.get(m[4])));
    }
    return lines;
  }

  /** Removes what a finished job no longer needs (its members; a failed job's chunks too), a step at a time. */
  async #dropLeftovers(job: Pick<ExportJob, 'id' | 'status'>): Promise<void> {
    let at: DropPosition | undefined;
    for (let share = this.#share; (at = await this.store.dropStep(job, { members: scaled(DROP.members, share), chunks: scaled(DROP.chunks, share) }, at)); ) {
      share = await this.#pace();
      if (this.#stopped) return;
    }
  }
}

/** The CSV cells of an account's sites (domain, clientRef) by pk, listed again when a member names one registered since. */
class SiteCache {
  #cells: Map<number, string> | undefined;

  constructor(
    private readonly store: SitesStore,
    private readonly accountId: string,
  ) {}

  /** The site's cells when the cache holds them. */
  cached(pk: number): string | undefined {
    return this.#cells?.get(pk);
  }

  /** The site's cells, listing the account's sites again when the cache lacks them (a site registered since). */
  async get(pk: number): Promise<string> {
    let cells = this.cached(pk);
    if (cells === undefined) {
      this.#cells = new Map((await this.store.list(this.accountId)).map((s) => [s.pk, siteCsvCells(s)]));
      cells = this.#cells.get(pk);
      if (cells === undefined) throw new Error(`export: site ${pk} not found`);
    }
    return cells;
  }
}
