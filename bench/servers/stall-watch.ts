/**
 * A load generator's view of its own hold-ups: turns of its event loop that came late (a GC pause,
 * or the process off its core), how much of each the thread spent runnable and waiting for a CPU
 * (Linux's schedstat), and its own garbage collections. A page is timed by the load generator, so
 * what held the load generator up counts against the page it was waiting for; this says how much.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { schedstat } from './thread-time.ts';

/** A span of performance.now() milliseconds. */
export interface Span {
  from: number;
  to: number;
}

/** A late turn of the event loop, and how long of it the thread waited for a CPU. */
export interface Stall extends Span {
  runQueueMs: number;
}

/** What held the process up during a span, in ms. */
export interface HeldUp {
  /** Stalled: the event loop stood still. */
  stallMs: number;
  /** Of that, runnable and waiting for a CPU (each stall's share by overlap). */
  runQueueMs: number;
  /** Collecting its own garbage (stalled or not). */
  gcMs: number;
}

const overlap = (s: Span, from: number, to: number) => Math.max(0, Math.min(s.to, to) - Math.max(s.from, from));

/** Stalls and collections noted so far, and what of them fell within a span. */
export class StallWatch {
  readonly #stalls: Stall[] = [];
  readonly #collections: Span[] = [];
  #started = false;

  constructor(
    /** A turn later than this (ms) past its time is a stall, not a busy turn. */
    private readonly lateMs = 15,
    private readonly tickMs = 5,
  ) {}

  /** Starts watching this process (once, however often called); the timer does not keep it alive. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    let last = performance.now();
    let waited = schedstat()?.[1];
    setInterval(() => {
      const now = performance.now();
      const nowWaited = schedstat()?.[1];
      if (now - last > this.tickMs + this.lateMs) {
        this.noteStall({ from: last + this.tickMs, to: now, runQueueMs: nowWaited !== undefined && waited !== undefined ? (nowWaited - waited) / 1e6 : 0 });
      }
      last = now;
      waited = nowWaited;
    }, this.tickMs).unref();
    new PerformanceObserver((list) => {
      for (const gc of list.getEntries()) this.noteCollection({ from: gc.startTime, to: gc.startTime + gc.duration });
    }).observe({ entryTypes: ['gc'] });
  }

  /** Records a stall (the watch's timer does; tests may too). */
  noteStall(stall: Stall): void {
    this.#stalls.push(stall);
  }

  /** Records a garbage collection. */
  noteCollection(span: Span): void {
    this.#collections.push(span);
  }

  /** What held the process up during [from, to]. */
  heldWithin(from: number, to: number): HeldUp {
    let stallMs = 0;
    let runQueueMs = 0;
    for (const s of this.#stalls) {
      const within = overlap(s, from, to);
      stallMs += within;
      if (within > 0) runQueueMs += s.runQueueMs * (within / (s.to - s.from));
    }
    const gcMs = this.#collections.reduce((sum, c) => sum + overlap(c, from, to), 0);
    return { stallMs, runQueueMs: Math.min(runQueueMs, stallMs), gcMs };
  }
}
