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
  /** Roughly how many requests the check sends on its own (shared walks aside), for planning the run; 4 when not given. */
  cost?: number;
  /** Sends requests and states what it expects; throws through the context to fail or skip. */
  run(t: CheckContext): Promise<void>;
}

/**
 * The choices the spec leaves open. The filter names are discovered (from the server's OpenAPI
 * document, else by probing candidate names) when the profile leaves them out; a value given here
 * always wins over discovery.
 */
export interface Profile {
  /** Query parameter of the lastSeen-after filter on people and companies. */
  lastSeenAfterParam?: string;
  /** Query parameter and value of the hot-leads filter on people. */
  hotLeadsParam?: string;
  hotLeadsValue: string;
  /** Most pages a walk may take before the harness stops discovering (keeps the request count bounded). */
  maxPagesPerWalk: number;
  /** Longest wait for an export job to finish, in seconds. */
  exportTimeoutSeconds: number;
}

export const DEFAULT_PROFILE: Profile = {
  hotLeadsValue: 'true',
  maxPagesPerWalk: 25,
  exportTimeoutSeconds: 180,
};

/** What the harness is pointed at. */
export interface HarnessConfig {
  baseUrl: string;
  accountKey: string;
  scopedKeys: { domain: string; key: string }[];
  /** Further account keys of the same account (the keys file's `accountKeys`), to check that they share its budget. */
  accountKeys?: string[];
  profile?: Partial<Profile>;
  /** Also run `destructive` checks. */
  destructive?: boolean;
  /** Also run `slow` checks. */
  slow?: boolean;
  /** Run only checks whose id starts with one of these. */
  only?: string[];
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
  /** Send at most this many requests; checks that would need more are skipped. */
  maxRequests?: number;
  /** When the server's hourly budget is short of what the run needs, wait for its window to reopen instead of stopping. */
  waitForBudget?: boolean;
  /** How the harness waits (default: a timer); tests pass one that moves a clock. */
  sleep?: (ms: number) => Promise<void>;
  /** Told what the harness is waiting for, when it waits for the budget. */
  onWait?: (message: string) => void;
}

/** What running one check produced, before judging. */
export type RawOutcome =
  | { kind: 'completed' }
  | { kind: 'failed'; message: string }
  | { kind: 'skipped'; reason: string }
  | { kind: 'not-applicable'; reason: string; profileKey?: string }
  | { kind: 'crashed'; message: string }
  | { kind: 'not-selected'; reason: string };

/**
 * - `passed`: the check ran and the implementation did what the spec says.
 * - `failed`: a proven contradiction of the spec (or an answer the check could not read).
 * - `skipped`: the check was not run: not selected, no scoped key given, or the request budget ran out.
 * - `n/a`: the check ran but its precondition could not be established (the data cannot show the
 *   statement, or an open choice such as a filter name is unknown); `profileKey` names the
 *   `--profile` key that would enable it, when one would.
 */
export type Verdict = 'passed' | 'failed' | 'skipped' | 'n/a';

/** Every verdict, in report order. */
export const VERDICTS: readonly Verdict[] = ['passed', 'failed', 'skipped', 'n/a'];

/** A judged check. */
export interface CheckResult {
  id: string;
  section: string;
  title: string;
  flags: Flag[];
  verdict: Verdict;
  /** Why it failed, was skipped or is not applicable. */
  detail?: string;
  /** For `n/a`: the `--profile` key that would enable the check. */
  profileKey?: string;
  requests: number;
  ms: number;
}

/** The whole run. */
export interface Report {
  baseUrl: string;
  results: CheckResult[];
  totals: Record<Verdict, number>;
  requests: number;
  /** Set when the run did not start (the server's request budget was short, or it could not be reached): the one message to show. */
  stopped?: string;
  /** Why the run did not start, when it did not. */
  stoppedBy?: 'budget' | 'unreachable';
  /** Set when a 429 the run did not ask for spent the account's budget mid-run: why the checks after it were skipped. */
  budgetSpent?: string;
  /** The run's plan: requests it expected to need and what the server had left when it started. */
  plan?: { needed: number; remaining?: number };
}
