/* Scheduling work for the next turn of the event loop, on any runtime. */

/** Whether the runtime has setImmediate (Node, Bun and Deno do); without it a turn is a timer of at least 1 ms. */
export const hasImmediate = typeof (globalThis as { setImmediate?: unknown }).setImmediate === 'function';

/** Queues a macrotask: it runs after the I/O (requests) already waiting. */
export const nextTurn: (run: () => void) => void = hasImmediate
  ? (run) => (globalThis as unknown as { setImmediate: (f: () => void) => void }).setImmediate(run)
  : (run) => setTimeout(run, 0);
