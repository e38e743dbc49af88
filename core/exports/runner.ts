import { writeToString } from 'fast-csv';
import { isDescending } from '../store/export-selection.ts';
import { ExportsStore, type ExportJob } from '../store/exports-store.ts';
import type { SitesStore } from '../store/sites-store.ts';
import type { Clock } from '../time/clock.ts';
import { toEpochSeconds } from '../time/iso.ts';
import { EXPORT_COLUMNS, toCsvRow } from './columns.ts';
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
/** Members and chunks a finished job's cleanup removes per step. */
const DROP_MEMBERS = 2000;
const DROP_CHUNKS = 16;

/**
 * How long export work may run before requests get a turn. Every running job shares one turn:
 * when each job took a slice of its own, three exports held a waiting request three slices long.
 */
const SLICE_MS = 2;
let turnStarted = 0;
/** Jobs waiting for the next turn, or null when no turn is scheduled. */
let nextTurnWaiters: (() => void)[] | null = null;

/** Queues a macrotask: setImmediate where the runtime has one, else setTimeout, which waits at least 1 ms. */
const nextTurn: (run: () => void) => void =
  typeof (globalThis as { setImmediate?: unknown }).setImmediate === 'function'
    ? (run) => (globalThis as unknown as { setImmediate: (f: () => void) => void }).setImmediate(run)
    : (run) => setTimeout(run, 0);

/**
 * Lets other work (requests first) run once the current turn's slice is used up, so exports
 * never hold a request for long. A step starts only within a turn's slice; the jobs that wake on
 * one turn share its slice.
 */
export const yieldToEventLoop = async (): Promise<void> => {
  while (performance.now() - turnStarted >= SLICE_MS) {
    await new Promise<void>((resolve) => {
      if (nextTurnWaiters === null) {
        nextTurnWaiters = [];
        nextTurn(() => {
          const waiters = nextTurnWaiters!;
          nextTurnWaiters = null;
          turnStarted = performance.now();
          for (const wake of waiters) wake();
        });
      }
      nextTurnWaiters.push(resolve);
    });
  }
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
    let job: ExportJob | undefined;
    try {
      await this.options.pace();
      job = await this.store.findAny(jobId);
      if (!job || this.#stopped) return;
      if (job.status !== 'processing') return await this.#dropLeftovers(job);
      if ((await this.store.countAttempt(jobId)) > this.options.maxAttempts) {
        await this.store.fail(jobId, `The export was interrupted ${this.options.maxAttempts} times and has been abandoned; start a new export.`);
        return await this.#dropLeftovers({ ...job, status: 'failed' });
      }
      const filters = JSON.parse(job.filters) as ExportFilters;
      const descending = isDescending(filters);
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
        await this.store.appendChunk(job, await writeToString([], { ...CSV_OPTIONS, headers: [...EXPORT_COLUMNS], alwaysWriteHeaders: true }), 0, null, descending);
      }
      // Read small batches (little garbage, flat memory) but write bigger chunks (few
      // transactions); a chunk and the position after it are written together.
      let pending = '';
      let written = job.next_seq;
      let after = ExportsStore.writtenKey(job);
      while (written < total) {
        await this.options.pace();
        if (this.#stopped) return;
        const batch = await this.store.members(jobId, descending, after, Math.min(this.options.batchRows, total - written));
        if (batch.length === 0) throw new Error(`export ${jobId}: its members ran out at row ${written} of ${total}`);
        pending += await writeToString(batch.map((m) => toCsvRow(m.row)), { ...CSV_OPTIONS, headers: written === 0 ? [...EXPORT_COLUMNS] : false });
        written += batch.length;
        after = batch[batch.length - 1]!.key;
        if (pending.length >= this.options.chunkChars || written === total) {
          await this.store.appendChunk(job, pending, written, after, descending);
          pending = '';
        }
      }
      await this.store.complete(jobId, toEpochSeconds(this.clock.now()), total);
      await this.#dropLeftovers({ ...job, status: 'complete' });
    } catch (error) {
      this.options.onError(error);
      await this.store.fail(jobId, 'The export failed because of an internal error; start a new export.').catch(this.options.onError);
      await this.#dropLeftovers({ id: jobId, status: 'failed' }).catch(this.options.onError);
    }
  }

  /** Removes what a finished job no longer needs (members past the cap; a failed job's chunks), a step at a time. */
  async #dropLeftovers(job: Pick<ExportJob, 'id' | 'status'>): Promise<void> {
    while (await this.store.dropStep(job, DROP_MEMBERS, DROP_CHUNKS)) {
      await this.options.pace();
      if (this.#stopped) return;
    }
  }
}
