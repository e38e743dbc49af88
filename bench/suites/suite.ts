/** What every suite shares: the options bench/run.ts hands it, and the check that a floor serves what we serve. */
import type { BenchData } from '../data.ts';
import type { PostgresTarget } from '../postgres-data.ts';
import type { Progress } from '../../scripts/progress.ts';

/** What `bench/run.ts` hands every suite. */
export interface SuiteOptions {
  /** The run's benchmark database: built through the project's API, with its keys and exact-size journeys. */
  data: BenchData;
  /** The run's seed and cache directory, for a suite that builds a database of its own (export). */
  seed: number;
  cacheDir?: string;
  /** A smoke run: every code path once, in seconds; its figures mean nothing. */
  tiny: boolean;
  /** Told of each case as it is measured (a bar on a terminal). */
  progress?: Progress;
  /** On a PostgreSQL run (`--postgres`): the server, for a suite that builds databases of its own (export). */
  postgres?: PostgresTarget;
}

/**
 * Stops the run when a floor's page is not ours: a floor that serves other rows measures something
 * else. Whole bodies are compared, in their key order, except the cursor's value: ours is signed,
 * a floor's is not, so only whether there is one must agree.
 */
export function assertSameData(ours: string, floor: string, where: string): void {
  const comparable = (body: string) => {
    const { pagination, ...rest } = JSON.parse(body) as { pagination: { nextCursor?: string } };
    return JSON.stringify({ ...rest, pagination: { ...pagination, nextCursor: pagination.nextCursor !== undefined } });
  };
  const [a, b] = [comparable(ours), comparable(floor)];
  if (a === b) return;
  let at = 0;
  while (a[at] === b[at]) at++;
  const near = (text: string) => text.slice(Math.max(0, at - 80), at + 80);
  throw new Error(`the floor's page differs from ours at ${where}, from character ${at}:\n  ours:  …${near(a)}…\n  floor: …${near(b)}…`);
}
