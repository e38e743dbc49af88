import { systemClock, type Clock } from './clock.ts';

/** A clock an operator may move (`POST /_admin/clock`): forward by seconds, or to an instant. */
export interface MovableClock extends Clock {
  advance(seconds: number): void;
  set(to: Date | number | string): void;
  /** Back to where it started (for `POST /_admin/reset`); a clock without it stays where it is. */
  reset?(): void;
}

/** Whether a clock can be moved from outside (a {@link ManualClock} or an {@link AdjustableClock}). */
export function isMovable(clock: Clock): clock is MovableClock {
  const c = clock as Partial<MovableClock>;
  return typeof c.advance === 'function' && typeof c.set === 'function';
}

/**
 * Another clock (the system's by default) plus an offset: time keeps running, and an operator can
 * jump it ahead to see cursors, download links, limits and retries expire without waiting. The
 * demo server runs on one of these.
 */
export class AdjustableClock implements MovableClock {
  #offsetMs = 0;

  constructor(private readonly base: Clock = systemClock) {}

  now(): number {
    return this.base.now() + this.#offsetMs;
  }

  /** Moves time forward (or back, for a negative number) by the given number of seconds. */
  advance(seconds: number): void {
    this.#offsetMs += seconds * 1000;
  }

  /** Jumps to an absolute time; it runs on from there. */
  set(to: Date | number | string): void {
    this.#offsetMs = new Date(to).getTime() - this.base.now();
  }

  /** Drops the offset: back to the base clock's time. */
  reset(): void {
    this.#offsetMs = 0;
  }

  /** How far this clock is ahead of its base, in milliseconds. */
  get offsetMs(): number {
    return this.#offsetMs;
  }
}
