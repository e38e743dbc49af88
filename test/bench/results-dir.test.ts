import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resultsDir, SAVED_RESULTS } from '../../bench/run.ts';

describe('where a benchmark run writes its reports', () => {
  it('is a new temporary folder unless asked to --save, so trying it never overwrites the committed results', () => {
    const first = resultsDir({});
    const second = resultsDir({ save: false });
    try {
      expect(first.startsWith(tmpdir())).toBe(true);
      expect(second).not.toBe(first);
      expect(first).not.toBe(resolve(SAVED_RESULTS));
    } finally {
      rmSync(first, { recursive: true, force: true });
      rmSync(second, { recursive: true, force: true });
    }
  });

  it('is bench/results with --save, and --out wherever it names', () => {
    expect(resultsDir({ save: true })).toBe(resolve('bench/results'));
    expect(resultsDir({ out: 'elsewhere/reports', save: true })).toBe(resolve('elsewhere/reports'));
  });
});
