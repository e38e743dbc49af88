import { writeToString } from 'fast-csv';
import { isDescending } from '../store/export-selection.ts';
import { ExportsStore, type ExportJob } from '../store/exports-store.ts';
import type { SitesStore } from '../store/sites-store.ts';
import type { Clock } from '../time/clock.ts';
import { toEpochSeconds } from '../time/iso.ts';
import { EXPORT_COLUMNS, toCsvRow } from './columns.ts';
import { RunMerge } from './run-merge.ts';
import type { ExportFilters } from './filters.ts';

/** Tuning of export runs. */
export interface ExportRunnerOptions {
  /** People written per step; each step is one small transaction. */
  batchRows: number;
  /** People pks walked per collection step (the selection is collected before writing starts). */
  collectPks: number;
  /** The most rows one file holds; a job that selects more is `partial`. */
  rowCap: number;
  /** About how much CSV text goes into one stored chunk (and between two progress marks). */
  chunkChars: number;
  /** Runs a job may start (its first plus resumptions) before it is marked failed. */
  maxAttempts: number;
  /** Awaited before each step of a run; by default yields to the event loop. Tests hold jobs here. */
  pace: () => Promise<void>;
  onError: (error: unknown) => void;
}

const CSV_OPTIONS = { rowDelimiter: '\r\n', includeEndRowDelimiter: true } as const;
/** Chunks a failed job's cleanup removes per step (members go a run per step). */
const DROP_CHUNKS = 16;

/** Whether the runtime has setImmediate (Node, Bun and Deno do); without it a turn is a timer of at least 1 ms. */
const hasImmediate = typeof (globalThis as { setImmediate?: unknown }).setImmediate === 'function';

/** Queues a macrotask: it runs after the I/O (requests) already waiting. */
const nextTurn: (run: () => void) => void = hasImmediate
  ? (run) => (globalThis as unknown as { setImmediate: (f: () => void) => void }).setImmediate(run)
  : (run) => setTimeout(run, 0);

/** How long export work runs per turn while nothing else wants the thread. */
const IDLE_SLICE_MS = 2;
/**
 * A turn that comes this long after export work yielded had other work (a request, a timer) in
 * between: the thread is busy, and until it is idle again each turn takes one export step.
 */
const BUSY_GAP_MS = hasImmediate ? 0.25 : 2;

/** Export work waiting for a turn, first come first served. */
const waiting: (() => void)[] = [];
let turnScheduled = false;
let turnStarted = 0;
let lastYield = 0;
let busy = false;

function scheduleTurn(): void {
  if (turnScheduled) return;
  turnScheduled = true;
  nextTurn(() => {
    turnScheduled = false;
    turnStarted = performance.now();
    busy = turnStarted - lastYield > BUSY_GAP_MS;
    // Busy: one step of one job per turn, jobs taking turns; idle: every job shares the slice.
    if (busy) waiting.shift()!();
    else for (const wake of waiting.splice(0)) wake();
    if (waiting.length > 0) scheduleTurn();
  });
}

/**
 * Lets other work (requests first) run between export steps. While requests are being served,
 * exports take one step per turn of the event loop, so a request waits for at most one step of
 * one job, however many jobs run; while nothing else runs, they share slices of 2 ms (a request
 * arriving then waits for the rest of the slice; each yield costs a loop turn, tens of µs). The
 * steps themselves are kept to a few milliseconds.
 */
export const yieldToEventLoop = async (): Promise<void> => {
  if (!busy && performance.now() - turnStarted < IDLE_SLICE_MS) return;
  lastYield = performance.now();
  await new Promise<void>((resolve) => {
    waiting.push(resolve);
    scheduleTurn();
  });
};

/**
 * Runs export jobs outside the requests that start them: `processing` → `complete` or `failed`.
 * A run first collects the selected people in steps over the people's pks, then writes the CSV in
 * file order in steps that each append a chunk and advance the job's position together; every
 * step records its progress in its own transaction, so a run stopped anywhere resumes exactly.
 */
export class ExportRunner {
  readonly #running = new Map<string, Promise<void>>();
  #stopped = false;

  constructor(
    private readonly store: ExportsStore,
    private readonly sites: SitesStore,
    private readonly clock: Clock,
    private readonly options: ExportRunnerOptions,
  ) {}

  /** Starts running a job in the background, unless it already runs. */
  start(jobId: string): void {
    if (this.#stopped || this.#running.has(jobId)) return;
    const run = this.#run(jobId).finally(() => this.#running.delete(jobId));
    this.#running.set(jobId, run);
  }

  /** Resumes every job a previous process left `processing`, and the cleanup of finished jobs it left unfinished. */
  async resumeInterrupted(): Promise<void> {
    for (const id of await this.store.processingIds()) this.start(id);
    for (const job of await this.store.withLeftovers()) this.start(job.id);
  }

  /** Resolves when no job is running. */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.all(this.#running.values());
  }

  /** Stops taking steps; jobs stay `processing` and resume on the next start. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.idle();
  }

  async #run(jobId: string): Promise<void> {
    try {
      await this.options.pace();
      const job = await this.store.findAny(jobId);
      if (!job || this.#stopped) return;
      if (job.status !== 'processing') return await this.#dropLeftovers(job);
      if ((await this.store.countAttempt(jobId)) > this.options.maxAttempts) {
        await this.store.fail(jobId, `The export was interrupted ${this.options.maxAttempts} times and has been abandoned; start a new export.`);
        return await this.#dropLeftovers({ ...job, status: 'failed' });
      }
      const filters = JSON.parse(job.filters) as ExportFilters;
      if (job.member_count === null) {
        if (job.collect_until_pk === null) await this.store.startCollection(job, toEpochSeconds(this.clock.now()));
        const sites = await this.sites.list(job.account_id);
        // The run's first pace stands before the first step.
        for (let first = true; job.member_count === null; first = false) {
          if (!first) await this.options.pace();
          if (this.#stopped) return;
          await this.store.collectStep(job, filters, sites, this.options.collectPks, this.options.rowCap);
        }
      }
      const total = job.member_count!;
      if (total === 0 && job.chunk_count === 0) {
        await this.store.appendChunk(job, await writeToString([], { ...CSV_OPTIONS, headers: [...EXPORT_COLUMNS], alwaysWriteHeaders: true }), 0, null);
      }
      // Read small batches (little garbage, flat memory) but write bigger chunks (few
      // transactions); a chunk and the position after it are written together.
      let pending = '';
      let written = job.next_seq;
      const merge = written < total ? await RunMerge.open(this.store, jobId, isDescending(filters), ExportsStore.writtenKey(job), this.options.pace) : undefined;
      while (merge && written < total) {
        await this.options.pace();
        if (this.#stopped) return;
        const members = await merge.next(Math.min(this.options.batchRows, total - written));
        if (members.length === 0) throw new Error(`export ${jobId}: its members ran out at row ${written} of ${total}`);
        const rows = await this.store.rows(members);
        pending += await writeToString(rows.map(toCsvRow), { ...CSV_OPTIONS, headers: written === 0 ? [...EXPORT_COLUMNS] : false });
        written += members.length;
        if (pending.length >= this.options.chunkChars || written === total) {
          await this.store.appendChunk(job, pending, written, members[members.length - 1]!);
          pending = '';
        }
      }
      await this.store.complete(jobId, toEpochSeconds(this.clock.now()), total);
      await this.#dropLeftovers({ ...job, status: 'complete' });
    } catch (error) {
      this.options.onError(error);
      await this.store.fail(jobId, 'The export failed because of an internal error; start a new export.').catch(this.options.onError);
      // As the job now stands: a fault in a complete job's cleanup must not drop its file.
      const job = await this.store.findAny(jobId).catch(this.options.onError);
      if (job) await this.#dropLeftovers(job).catch(this.options.onError);
    }
  }

  /** Removes what a finished job no longer needs (its members; a failed job's chunks too), a step at a time. */
  async #dropLeftovers(job: Pick<ExportJob, 'id' | 'status'>): Promise<void> {
    while (await this.store.dropStep(job, DROP_CHUNKS)) {
      await this.options.pace();
      if (this.#stopped) return;
    }
  }
}
