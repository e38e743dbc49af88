/* Scheduling work for the next turn of the event loop, on any runtime. */

/** Whether the runtime has setImmediate (Node, Bun and Deno do); without it a turn is a timer of at least 1 ms. */
export const hasImmediate = typeof (globalThis as { setImmediate?: unknown }).setImmediate === 'function';

/** Queues a macrotask: it runs after the I/O (requests) already waiting. */
export const nextTurn: (run: () => void) => void = hasImmediate
  ? (run) => (globalThis as unknown as { setImmediate: (f: () => void) => void }).setImmediate(run)
  : (run) => setTimeout(run, 0);

/** Turns queued by {@link nextTurnForRequests} that have not run yet. */
let requestTurns = 0;

/**
 * Queues work that requests are waiting on (the turn's rate-limit count) for the next turn.
 * Background work already queued for that turn steps aside for it ({@link requestsWaitOnTurn}):
 * turns run first come first served, so an export step queued a moment earlier would otherwise
 * hold every request of the turn for its few milliseconds.
 */
export function nextTurnForRequests(run: () => void): void {
  requestTurns++;
  nextTurn(() => {
    requestTurns--;
    run();
  });
}

/** Whether requests wait on work queued for a turn that has not run yet. */
export function requestsWaitOnTurn(): boolean {
  return requestTurns > 0;
}

/** When a request last reached the API (performance.now()); none yet is -Infinity. */
let lastRequest = -Infinity;

/** Marks a request reaching the API now: background work takes small steps while requests come. */
export function noteRequest(): void {
  lastRequest = performance.now();
}

/** When a request last reached the API, on performance.now()'s scale; -Infinity before the first. */
export function lastRequestAt(): number {
  return lastRequest;
}
