/**
 * Runs in-process cases through tinybench and turns each into a CaseResult: median and p99
 * latency, and a rate derived from the median.
 */
import { Bench } from 'tinybench';
import { createRng, mixSeed } from '../../scripts/demo/rng.ts';
import { QUIET, type Progress } from '../../scripts/progress.ts';
import { percentiles, type CaseResult } from '../results.ts';

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

/** A case to measure: the CaseResult fields besides the figures, and the work. */
export interface PagingCase {
  name: string;
  role: CaseResult['role'];
  params?: Record<string, number | string>;
  unit: string;
  run: () => unknown;
}

/**
 * Measures the cases one after another (never concurrently: they share the CPU and the database),
 * in interleaved passes whose samples are pooled, so warm-up, GC and a busy neighbour fall on
 * every case alike. Each pass after the first takes the cases in another order, so no case always
 * pays for the garbage its neighbour leaves.
 */
export async function measure(cases: PagingCase[], timing: Timing, progress: Progress = QUIET): Promise<CaseResult[]> {
  const { rounds } = timing;
  const samples = new Map<PagingCase, number[]>(cases.map((c) => [c, []]));
  progress.start(cases.length * rounds);
  for (let round = 0; round < rounds; round++) {
    for (const c of round === 0 ? cases : shuffled(cases, round)) {
      // One Bench per case and round, so a case's warmup sits right before its own samples.
      const bench = new Bench({
        time: timing.time / rounds,
        iterations: Math.ceil(timing.iterations / rounds),
        warmupTime: timing.warmupTime / rounds,
        warmupIterations: timing.warmupIterations,
        warmup: timing.warmupIterations > 0,
        retainSamples: true,
        throws: true,
      });
      bench.add(c.name, c.run);
      const [task] = await bench.run();
      const result = task!.result;
      if (!('latency' in result) || !result.latency.samples) throw new Error(`${c.name}: tinybench ended ${result.state}`);
      samples.get(c)!.push(...result.latency.samples);
      progress.step(c.name);
    }
  }
  return cases.map((c) => {
    const all = samples.get(c)!;
    const { medianMs, p99Ms } = percentiles(all);
    return { name: c.name, role: c.role, medianMs, p99Ms, perSecond: 1000 / medianMs, unit: c.unit, samples: all.length, ...(c.params ? { params: c.params } : {}) };
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
