/** The source of "now" for every time-based rule, so tests can move time instead of waiting. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that stands still until told to move: for tests and simulations. */
export class ManualClock implements Clock {
  #ms: number;

  constructor(start: Date | number | string = Date.UTC(2026, 10, 21, 12, 0, 0)) {
    this.#ms = new Date(start).getTime();
  }

  now(): number {
    return this.#ms;
  }

  /** Moves time forward by the given number of seconds. */
  advance(seconds: number): void {
    this.#ms += seconds * 1000;
  }

  /** Jumps to an absolute time. */
  set(to: Date | number | string): void {
    this.#ms = new Date(to).getTime();
  }
}
