/* How export work shares the event loop with requests. */

/** Whether the runtime has setImmediate (Node, Bun and Deno do); without it a turn is a timer of at least 1 ms. */
const hasImmediate = typeof (globalThis as { setImmediate?: unknown }).setImmediate === 'function';

/** Queues a macrotask: it runs after the I/O (requests) already waiting. */
const nextTurn: (run: () => void) => void = hasImmediate
  ? (run) => (globalThis as unknown as { setImmediate: (f: () => void) => void }).setImmediate(run)
  : (run) => setTimeout(run, 0);

/** When a request last reached the API (performance.now()); none yet is -Infinity. */
let lastRequest = -Infinity;

/** Marks a request reaching the API now: export work takes small steps while requests come. */
export function noteRequest(): void {
  lastRequest = performance.now();
}

/** How long export work runs per turn while nothing else wants the thread. */
const IDLE_SLICE_MS = 2;
/**
 * A turn that comes this long after export work yielded had other work (a request, a timer, a task
 * of the garbage collector) in between: that turn takes one small step.
 */
const BUSY_GAP_MS = hasImmediate ? 0.25 : 2;
/**
 * The share of a full step an export takes per turn while the thread is busy. Every request then
 * waits behind about one step, so the step's length is added to the requests' latency: a twelfth
 * of a step (8 rows written, 83 people collected: ~0.15 and ~0.35 ms) kept reads' p99 within 1.5×
 * idle during three exports of 100,000 people, where steps of 25 rows made it 2.4×. Idle, full
 * steps keep an export's own pace: steps of 8 rows everywhere made it ~25% slower than 25, and
 * 100 rows (1,000 people collected, 4 chunks a commit) took a quarter off 25 (100,000 people:
 * 4.9 against 6.4 s, medians of five interleaved pairs, 2026-11-27), the steps' fixed costs
 * (statements, commits) spread wider.
 */
const BUSY_SHARE = 1 / 12;
/**
 * How long the thread counts as busy after a request reached the API. Under load a request comes
 * every millisecond or two, and the turns between them, idle for a moment, took full steps (2–4 ms)
 * that the next requests waited behind: reads' p99 during three exports went from 1.34× idle to
 * 1.64× when full steps grew to 100 rows (one pair of bench:reads runs, 2026-11-27). Held after
 * any late turn instead, GC tasks between turns kept an export with no request in small steps for
 * most of its time.
 */
const BUSY_HOLD_MS = 20;

/** Export work waiting for a turn, first come first served. */
const waiting: (() => void)[] = [];
let turnScheduled = false;
let turnStarted = 0;
let lastYield = 0;
let busy = false;

function scheduleTurn(): void {
  if (turnScheduled) return;
  turnScheduled = true;
  nextTurn(turn);
}

function turn(): void {
  turnScheduled = false;
  turnStarted = performance.now();
  busy = turnStarted - lastYield > BUSY_GAP_MS || turnStarted - lastRequest < BUSY_HOLD_MS;
  // Busy: one step of one job per turn, jobs taking turns; idle: every job shares the slice.
  if (busy) waiting.shift()!();
  else for (const wake of waiting.splice(0)) wake();
  if (waiting.length > 0) scheduleTurn();
}

/**
 * Lets other work (requests first) run between export steps, and resolves to the share of a full
 * step to take next. While requests are being served (one reached the API in the last 20 ms),
 * exports take one small step per turn of the event loop, so a request waits for at most one small
 * step of one job, however many jobs run; while nothing else runs, they take full steps and share
 * slices of 2 ms (a request arriving then waits for the rest of the step; each yield costs a loop
 * turn, tens of µs).
 */
export const yieldToEventLoop = async (): Promise<number> => {
  if (!busy && performance.now() - turnStarted < IDLE_SLICE_MS) return 1;
  lastYield = performance.now();
  await new Promise<void>((resolve) => {
    waiting.push(resolve);
    scheduleTurn();
  });
  return busy ? BUSY_SHARE : 1;
};

/** The share of a full step that a pace's answer asks for: 1 unless it names a smaller one. */
export function shareOf(answer: number | void): number {
  return typeof answer === 'number' && answer > 0 && answer < 1 ? answer : 1;
}

/** `full` scaled by a step's share, never below 1. */
export function scaled(full: number, share: number): number {
  return Math.max(1, Math.round(full * share));
}
