/* How export work shares the event loop with requests. */

/** Whether the runtime has setImmediate (Node, Bun and Deno do); without it a turn is a timer, which browsers and runtimes clamp. */
const hasImmediate = typeof (globalThis as { setImmediate?: unknown }).setImmediate === 'function';

/** Queues a macrotask: it runs after the I/O (requests) already waiting. */
const nextTurn: (run: () => void) => void = hasImmediate
  ? (run) => (globalThis as unknown as { setImmediate: (f: () => void) => void }).setImmediate(run)
  : (run) => setTimeout(run, 0);

/** How long export work runs per turn while nothing else wants the thread. */
const IDLE_SLICE_MS = 2;
/** A turn that comes this long after export work yielded had other work in between: it takes one small step. */
const BUSY_GAP_MS = hasImmediate ? 0.25 : 2;
/** The share of a full step taken per turn while requests are served: each request waits behind at most that much. */
const BUSY_SHARE = 1 / 12;
/** How long the thread counts as busy after a request reached the API (under load they come far more often). */
const BUSY_HOLD_MS = 20;

/**
 * How one API's export work shares the event loop with its requests. While requests are being
 * served (one reached the API within BUSY_HOLD_MS), exports take one small step per turn of the
 * event loop, so a request waits for at most one small step of one job however many jobs run;
 * while nothing else runs, they take full steps and share slices of IDLE_SLICE_MS.
 */
export class ExportPace {
  #lastRequest = -Infinity;
  /** Export work waiting for a turn, first come first served. */
  readonly #waiting: (() => void)[] = [];
  #turnScheduled = false;
  #turnStarted = 0;
  #lastYield = 0;
  #busy = false;

  /** Marks a request reaching the API now: export work takes small steps while requests come. */
  noteRequest(): void {
    this.#lastRequest = performance.now();
  }

  /** Lets other work (requests first) run between export steps; the share of a full step to take next. */
  readonly yield = async (): Promise<number> => {
    if (!this.#busy && performance.now() - this.#turnStarted < IDLE_SLICE_MS) return 1;
    this.#lastYield = performance.now();
    await new Promise<void>((resolve) => {
      this.#waiting.push(resolve);
      this.#scheduleTurn();
    });
    return this.#busy ? BUSY_SHARE : 1;
  };

  #scheduleTurn(): void {
    if (this.#turnScheduled) return;
    this.#turnScheduled = true;
    nextTurn(() => this.#turn());
  }

  #turn(): void {
    this.#turnScheduled = false;
    this.#turnStarted = performance.now();
    this.#busy = this.#turnStarted - this.#lastYield > BUSY_GAP_MS || this.#turnStarted - this.#lastRequest < BUSY_HOLD_MS;
    // Busy: one step of one job per turn, jobs taking turns; idle: every job shares the slice.
    if (this.#busy) this.#waiting.shift()!();
    else for (const wake of this.#waiting.splice(0)) wake();
    if (this.#waiting.length > 0) this.#scheduleTurn();
  }
}

/** The share of a full step that a pace's answer asks for: 1 unless it names a smaller one. */
export function shareOf(answer: number | void): number {
  return typeof answer === 'number' && answer > 0 && answer < 1 ? answer : 1;
}

/** `full` scaled by a step's share, never below 1. */
export function scaled(full: number, share: number): number {
  return Math.max(1, Math.round(full * share));
}
