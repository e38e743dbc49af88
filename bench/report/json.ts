/** `latest.json`: the run exactly as the suites returned it, for tools and for comparing runs. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchRun } from '../results.ts';

/** Writes `<dir>/latest.json` and returns its path. */
export function writeJson(run: BenchRun, dir: string): string {
  const path = join(dir, 'latest.json');
  writeFileSync(path, `${JSON.stringify(run, null, 2)}\n`);
  return path;
}
