/**
 * Runs paging cases through tinybench and turns each into a CaseResult: median and p99 latency,
 * and a rate derived from the median (pages/s for one page, events/s for a whole walk).
 */
import { Bench } from 'tinybench';
import { createRng, mixSeed } from '../../scripts/demo/rng.ts';
import { percentiles, type CaseResult, type Pass, type ThreadTime } from '../results.ts';
import { timed } from '../servers/thread-time.ts';

/** How long tinybench measures each case, in total over all rounds. */
export interface Timing {
  time: number;
  iterations: number;
  warmupTime: number;
  warmupIterations: number;
  /** Interleaved passes over all cases; the budgets above are split between them. */
  rounds: number;
}

/** One page: long enough for a stable median and a meaningful p99. Tiny: just enough to run the code. */
export function pageTiming(tiny: boolean): Timing {
  return tiny ? { time: 25, iterations: 5, warmupTime: 5, warmupIterations: 2, rounds: 1 } : { time: 1_200, iterations: 64, warmupTime: 200, warmupIterations: 8, rounds: 12 };
}

/** A whole walk takes up to seconds, so a fixed few walks rather than a time budget, one per round. */
export function walkTiming(tiny: boolean): Timing {
  return tiny ? { time: 0, iterations: 2, warmupTime: 0, warmupIterations: 1, rounds: 1 } : { time: 0, iterations: 5, warmupTime: 0, warmupIterations: 1, rounds: 5 };
}

/** A case to measure: the CaseResult fields besides the figures, and the work. */
export interface PagingCase {
  name: string;
  role: CaseResult['role'];
  params?: Record<string, number | string>;
  /** Units of `unit` one call does (1 page, or the events of a walk). */
  perCall: number;
  unit: string;
  run: () => unknown;
  /** Budgets of this case alone (a case that takes a second a call needs a few calls, not a time budget); the rounds stay the run's. */
  timing?: Omit<Timing, 'rounds'>;
}

/**
 * Measures the cases one after another (never concurrently: they share the CPU and the database),
 * in interleaved passes whose samples are pooled, so JIT warm-up, GC and a busy neighbour
 * fall on every case alike instead of on whichever ran first. Each pass after the first takes the
 * cases in another order: in a fixed order a case always follows the same neighbour and pays for
 * what it leaves (a floor's garbage, collected during the next case's samples; README "Benchmarks"
 * gives the figures).
 */
export async function measure(cases: PagingCase[], timing: Timing, onCase?: (name: string) => void): Promise<CaseResult[]> {
  const { rounds } = timing;
  const samples = new Map<PagingCase, number[]>(cases.map((c) => [c, []]));
  const threadTimes = new Map<PagingCase, ThreadTime>(cases.map((c) => [c, { wallMs: 0, cpuMs: 0, runQueueMs: 0 }]));
  const passes = new Map<PagingCase, Pass[]>(cases.map((c) => [c, []]));
  const started = performance.now();
  for (let round = 0; round < rounds; round++) {
    for (const c of round === 0 ? cases : shuffled(cases, round)) {
      if (round === 0) onCase?.(c.name);
      // One Bench per case and round, so a case's warmup sits right before its own samples.
      const t = c.timing ?? timing;
      const bench = new Bench({
        time: t.time / rounds,
        iterations: Math.ceil(t.iterations / rounds),
        warmupTime: t.warmupTime / rounds,
        warmupIterations: t.warmupIterations,
        warmup: t.warmupIterations > 0,
        retainSamples: true,
        throws: true,
      });
      bench.add(c.name, c.run);
      const atS = Number(((performance.now() - started) / 1000).toFixed(2));
      const [task] = await timed(threadTimes.get(c)!, () => bench.run());
      const result = task!.result;
      if (!('latency' in result) || !result.latency.samples) throw new Error(`${c.name}: tinybench ended ${result.state}`);
      samples.get(c)!.push(...result.latency.samples);
      passes.get(c)!.push({ atS, medianMs: Number(percentiles(result.latency.samples).medianMs.toFixed(4)) });
    }
  }
  return cases.map((c) => {
    const all = samples.get(c)!;
    const { medianMs, p99Ms } = percentiles(all);
    const threadTime = threadTimes.get(c)!;
    return { name: c.name, role: c.role, medianMs, p99Ms, perSecond: (c.perCall * 1000) / medianMs, unit: c.unit, samples: all.length, ...(c.params ? { params: c.params } : {}), passes: passes.get(c)!, ...(threadTime.cpuMs > 0 ? { threadTime } : {}) };
  });
}

/** The items in an order fixed by `seed` (Fisher–Yates over the demo data's seeded generator), so runs stay comparable. */
function shuffled<T>(items: T[], seed: number): T[] {
  const rng = createRng(mixSeed(seed));
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
