/* How export work shares the event loop with requests. */
import { hasImmediate, nextTurn, requestsWaitOnTurn } from '../time/next-turn.ts';

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
  nextTurn(turn);
}

/** Whether this turn already stepped aside once for requests' work. */
let deferred = false;

function turn(): void {
  // Requests' work queued behind this turn (their rate-limit count) goes first; the step then runs
  // in the next turn's timers, before new requests are read. Once only, so exports never starve.
  if (requestsWaitOnTurn() && !deferred) {
    deferred = true;
    setTimeout(turn, 0);
    return;
  }
  deferred = false;
  turnScheduled = false;
  turnStarted = performance.now();
  busy = turnStarted - lastYield > BUSY_GAP_MS;
  // Busy: one step of one job per turn, jobs taking turns; idle: every job shares the slice.
  if (busy) waiting.shift()!();
  else for (const wake of waiting.splice(0)) wake();
  if (waiting.length > 0) scheduleTurn();
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
