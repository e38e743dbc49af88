import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SuiteResult } from '../../bench/results.ts';
import { DEFAULT_SUITES, runBench, type RunOutcome } from '../../bench/run.ts';
import { PROCESSES } from '../../bench/suites/pg-scaling.ts';

// `npm run bench -- --tiny --suites pg-scaling` in-process: a throwaway primary and standby
// (pg_createcluster, as root), PgBouncer and the built bin, on tiny loads. Figures are never
// asserted, only that the suite measured each thing it says it does.
const dir = mkdtempSync(join(tmpdir(), 'vi-bench-scaling-'));
let outcome: RunOutcome;
let suite: SuiteResult;

beforeAll(async () => {
  outcome = await runBench({ tiny: true, seed: 42, people: 200, suites: ['pg-scaling'], out: join(dir, 'results'), cacheDir: join(dir, 'cache'), strict: true, log: () => {} });
  suite = outcome.run.suites.find((s) => s.suite === 'pg-scaling')!;
}, 240_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run bench -- --suites pg-scaling', () => {
  it('runs only when named: no run takes it by default, on either backend', () => {
    expect(DEFAULT_SUITES.sqlite).not.toContain('pg-scaling');
    expect(DEFAULT_SUITES.postgres).not.toContain('pg-scaling');
    expect(outcome.run.suites.map((s) => s.suite)).toEqual(['pg-scaling']);
  });

  it('records its run as one on PostgreSQL, though no --postgres was given', () => {
    expect(outcome.run.config.backend).toBe('postgres');
  });

  it('measures both pages through 1, 2 and 4 processes with replica reads off and on, each beside one process without them', () => {
    for (const page of ['people', 'events']) {
      const cases = suite.cases.filter((c) => c.params?.page === page && c.unit === 'req/s');
      const configurations = cases.map((c) => `${c.params!.processes} ${c.params!.replicaReads}`);
      expect(configurations).toEqual(['off', 'on'].flatMap((replica) => PROCESSES.map((n) => `${n} ${replica}`)));
      for (const c of cases) expect(c.perSecond).toBeGreaterThan(0);
      const [base, ...others] = cases;
      expect(base!.role).toBe('floor');
      for (const c of others) expect(c.params!.floor).toBe(base!.name);
    }
  });

  it("splits each page's statement time into reads and the primary's part, and counts requests per rate-limit write", () => {
    const shares = suite.cases.filter((c) => c.unit === '%');
    expect(shares.map((c) => `${c.params!.page} ${c.params!.replicaReads}`)).toEqual(['people off', 'people on', 'events off', 'events on']);
    for (const c of shares) {
      expect(c.perSecond).toBeGreaterThan(0);
      expect(c.perSecond).toBeLessThanOrEqual(100);
    }
    const perWrite = suite.cases.find((c) => c.name.startsWith('requests per rate-limit count write'));
    expect(perWrite?.perSecond).toBeGreaterThan(0);
  });

  it('times a failover: the primary stopped, the standby promoted, until every process answers again', () => {
    const failover = suite.cases.find((c) => c.name.startsWith('failover'));
    expect(failover?.medianMs).toBeGreaterThan(0);
    expect(failover?.params).toEqual({ processes: Math.max(...PROCESSES), replicaReads: 'on' });
  });

  it('judges no target', () => {
    expect(suite.targets).toEqual([]);
  });
});
