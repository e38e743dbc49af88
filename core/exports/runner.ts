import { writeToString } from 'fast-csv';
import type { ExportsStore } from '../store/exports-store.ts';
import type { SitesStore } from '../store/sites-store.ts';
import type { Clock } from '../time/clock.ts';
import { toEpochSeconds } from '../time/iso.ts';
import { EXPORT_COLUMNS, toCsvRow } from './columns.ts';
import type { ExportFilters } from './filters.ts';

/** Tuning of export runs. */
export interface ExportRunnerOptions {
  /** People written per step; each step is one small transaction. */
  batchRows: number;
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

/** How long a run may work before it lets other work (requests, other jobs) run. */
const SLICE_MS = 8;
let sliceStarted = 0;

/** Queues a macrotask: setImmediate where the runtime has one, else setTimeout, which waits at least 1 ms. */
const nextTurn: (run: () => void) => void =
  typeof (globalThis as { setImmediate?: unknown }).setImmediate === 'function'
    ? (run) => (globalThis as unknown as { setImmediate: (f: () => void) => void }).setImmediate(run)
    : (run) => setTimeout(run, 0);

/** Lets other work run once the current slice of work is used up, so exports never stall requests for long. */
export const yieldToEventLoop = async (): Promise<void> => {
  if (performance.now() - sliceStarted < SLICE_MS) return;
  await new Promise<void>((resolve) => nextTurn(resolve));
  sliceStarted = performance.now();
};

/**
 * Runs export jobs outside the requests that start them: `processing` → `complete` or `failed`.
 * A run first snapshots the selected people, then writes the CSV in steps that each append a
 * chunk and advance the job's position together, so a run stopped anywhere resumes exactly.
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

  /** Resumes every job a previous process left `processing`. */
  async resumeInterrupted(): Promise<void> {
    for (const id of await this.store.processingIds()) this.start(id);
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
      let job = await this.store.findAny(jobId);
      if (!job || job.status !== 'processing' || this.#stopped) return;
      if ((await this.store.countAttempt(jobId)) > this.options.maxAttempts) {
        await this.store.fail(jobId, `The export was interrupted ${this.options.maxAttempts} times and has been abandoned; start a new export.`);
        return;
      }
      const filters = JSON.parse(job.filters) as ExportFilters;
      if (job.member_count === null) {
        const sites = await this.sites.list(job.account_id);
        await this.store.select(job, filters, sites, toEpochSeconds(this.clock.now()), this.options.rowCap);
        job = (await this.store.findAny(jobId))!;
      }
      const total = job.member_count!;
      if (total === 0 && job.chunk_count === 0) {
        await this.store.appendChunk(job, await writeToString([], { ...CSV_OPTIONS, headers: [...EXPORT_COLUMNS], alwaysWriteHeaders: true }), 0);
      }
      // Read small batches (little garbage, flat memory) but write bigger chunks (few
      // transactions); a chunk and the position after it are written together.
      let pending = '';
      let read = job.next_seq;
      while (read < total) {
        await this.options.pace();
        if (this.#stopped) return;
        const to = Math.min(read + this.options.batchRows, total);
        const rows = (await this.store.members(jobId, read, to)).map(toCsvRow);
        pending += await writeToString(rows, { ...CSV_OPTIONS, headers: read === 0 ? [...EXPORT_COLUMNS] : false });
        read = to;
        if (pending.length >= this.options.chunkChars || read === total) {
          await this.store.appendChunk(job, pending, read);
          pending = '';
        }
      }
      await this.store.complete(jobId, toEpochSeconds(this.clock.now()), total);
    } catch (error) {
      this.options.onError(error);
      await this.store.fail(jobId, 'The export failed because of an internal error; start a new export.').catch(this.options.onError);
    }
  }
}
