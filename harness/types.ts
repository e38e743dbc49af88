import type { CheckContext } from './context.ts';

/**
 * Flags in the spirit of test262's frontmatter:
 * - `destructive`: exhausts a limit (the hourly budget, the export slots); runs only when asked.
 * - `budget`: spends the hourly request budget; runs after every other check, since nothing can follow it.
 * - `slow`: waits on the server's clock (e.g. 900 s for a link to expire); runs only when asked.
 * - `scoped`: needs at least one domain-scoped key.
 * - `exports`: starts export jobs.
 */
export type Flag = 'destructive' | 'budget' | 'slow' | 'scoped' | 'exports';

/** One check: a single observable statement of the spec. */
export interface Check {
  /** Stable identifier, `<area>.<statement>`. */
  id: string;
  /** The spec section the statement comes from, as titled there. */
  section: string;
  /** The statement, as a sentence. */
  title: string;
  flags?: Flag[];
  /** Sends requests and states what it expects; throws through the context to fail or skip. */
  run(t: CheckContext): Promise<void>;
}

/** The choices the spec leaves open, which the harness cannot discover. */
export interface Profile {
  /** Query parameter of the lastSeen-after filter on people and companies. */
  lastSeenAfterParam: string;
  /** Query parameter and value of the hot-leads filter on people. */
  hotLeadsParam: string;
  hotLeadsValue: string;
  /** Most pages a walk may take before the harness stops discovering (keeps the request count bounded). */
  maxPagesPerWalk: number;
  /** Longest wait for an export job to finish, in seconds. */
  exportTimeoutSeconds: number;
}

export const DEFAULT_PROFILE: Profile = {
  lastSeenAfterParam: 'last_seen_after',
  hotLeadsParam: 'hot_leads',
  hotLeadsValue: 'true',
  maxPagesPerWalk: 25,
  exportTimeoutSeconds: 180,
};

/** What the harness is pointed at. */
export interface HarnessConfig {
  baseUrl: string;
  accountKey: string;
  scopedKeys: { domain: string; key: string }[];
  profile?: Partial<Profile>;
  /** Also run `destructive` checks. */
  destructive?: boolean;
  /** Also run `slow` checks. */
  slow?: boolean;
  /** Run only checks whose id starts with one of these. */
  only?: string[];
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
}

/** What running one check produced, before judging. */
export type RawOutcome =
  | { kind: 'completed' }
  | { kind: 'failed'; message: string }
  | { kind: 'skipped'; reason: string }
  | { kind: 'crashed'; message: string }
  | { kind: 'not-selected'; reason: string };

export type Verdict = 'passed' | 'failed' | 'skipped';

/** A judged check. */
export interface CheckResult {
  id: string;
  section: string;
  title: string;
  flags: Flag[];
  verdict: Verdict;
  /** Why it failed or was skipped. */
  detail?: string;
  requests: number;
  ms: number;
}

/** The whole run. */
export interface Report {
  baseUrl: string;
  results: CheckResult[];
  totals: Record<Verdict, number>;
  requests: number;
}
