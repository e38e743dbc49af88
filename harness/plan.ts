/**
 * Planning a run against the server's hourly budget: read X-RateLimit-Remaining first, estimate
 * what the selected checks will send, and stop (or wait) before a short budget turns into a
 * string of 429s.
 */
import { BudgetSpent, reopensInSeconds, type HttpClient } from './http.ts';
import type { Check, Profile } from './types.ts';

/** Requests a check sends on its own when it does not declare its cost. */
export const DEFAULT_COST = 3;
/**
 * Walks of the whole people list a run makes (the account's, filtered ones, each scoped key's),
 * each costing a page per 100 people; plus the probes that discover the filter names.
 */
const WALKS = 8;
const DISCOVERY = 12;

/** What the harness learned before the first check. */
export interface Plan {
  /** Requests the selected checks are expected to send, roughly. */
  needed: number;
  /** What X-RateLimit-Remaining said, when the server sent it. */
  remaining?: number;
  /** Seconds until the window reopens, when the server said (Retry-After, or a reset header). */
  reopensIn?: number;
  /** Why the run does not start: the budget is short, or the server cannot be reached. */
  stopped?: string;
  /** Which of the two stopped it. */
  stoppedBy?: 'budget' | 'unreachable';
}

/** Roughly how many requests the selected checks send over `people` people. Checks spending the budget on purpose take whatever is left and are not counted. */
export function estimateRequests(checks: Check[], people: number | undefined, profile: Profile): number {
  const pages = Math.min(profile.maxPagesPerWalk, Math.max(1, Math.ceil((people ?? 2000) / 100)));
  const own = checks.filter((c) => !c.flags?.includes('budget')).reduce((sum, c) => sum + (c.cost ?? DEFAULT_COST), 0);
  return own === 0 ? 0 : own + WALKS * pages + DISCOVERY;
}

/** What the probe learned: the budget left, when it reopens, the people; or that no answer came. */
interface Probed {
  remaining?: number;
  reopensIn?: number;
  people?: number;
  /** Why no request got an answer (connection refused, unknown host, …). */
  unreachable?: string;
}

/**
 * Asks the server once (GET /v1/stats) what the account key has left this hour and how many people
 * it holds. When that gets no answer at all, GET /v1/health tells a server that is not there from
 * one that only fails on /v1/stats (which is for the checks to report).
 */
async function probe(http: HttpClient): Promise<Probed> {
  http.allowRateLimited = true;
  try {
    const reply = await http.request('GET', '/v1/stats');
    const header = reply.headers.get('x-ratelimit-remaining')?.trim();
    const remaining = header && /^\d+$/.test(header) ? Number(header) : reply.status === 429 ? 0 : undefined;
    const total = reply.body?.data?.totalPeople;
    return { remaining, reopensIn: reopensInSeconds(reply.headers), people: Number.isInteger(total) ? total : undefined };
  } catch (error) {
    // --max-requests 0 sends nothing: the plan just knows nothing.
    if (error instanceof BudgetSpent) return {};
    try {
      await http.request('GET', '/v1/health', { key: null });
      return {};
    } catch (again) {
      return again instanceof BudgetSpent ? {} : { unreachable: networkReason(again) };
    }
  } finally {
    http.allowRateLimited = false;
  }
}

/** The innermost reason a fetch gave for getting no answer (Node wraps it in `cause`, sometimes an AggregateError). */
function networkReason(error: unknown): string {
  let reason = error;
  for (let depth = 0; depth < 5; depth++) {
    const next = reason instanceof AggregateError && reason.errors.length > 0 ? reason.errors[0] : (reason as { cause?: unknown } | null)?.cause;
    if (next === undefined || next === null) break;
    reason = next;
  }
  const text = reason instanceof Error ? reason.message || (reason as { code?: string }).code || reason.name : String(reason);
  return text.replace(/\s+/g, ' ').trim();
}

/** The message a run stops with when no request gets an answer. */
export function unreachableMessage(baseUrl: string, reason: string): string {
  return `Cannot reach the server at ${baseUrl}: ${reason}; nothing was checked. Start the server, or check --base-url.`;
}

/** The message a run stops with when the budget is short. */
export function shortBudgetMessage(needed: number, remaining: number, reopensIn: number | undefined, now = Date.now()): string {
  const when =
    reopensIn === undefined
      ? 'the server does not say when its window reopens (Retry-After comes only with a 429)'
      : `the window reopens in ${reopensIn} s (${new Date(now + reopensIn * 1000).toISOString()}) per Retry-After`;
  return `Not started: the run needs about ${needed} requests but the server allows ${remaining} more this hour; ${when}. Run again then, add --wait-for-budget, or run fewer checks (--only, --max-requests).`;
}

/**
 * Reads the budget and plans the run; with `wait`, sleeps until the window reopens (by Retry-After,
 * else a minute at a time) until the budget covers the run. `maxRequests` caps what is needed.
 */
export async function planRun(
  http: HttpClient,
  checks: Check[],
  profile: Profile,
  options: { wait?: boolean; maxRequests?: number; sleep: (ms: number) => Promise<void>; onWait?: (message: string) => void },
): Promise<Plan> {
  // Checks that only read what a webhook receiver got send nothing: they need no server.
  if (checks.every((c) => c.cost === 0 && !c.flags?.includes('budget'))) return { needed: 0 };
  for (;;) {
    const seen = await probe(http);
    if (seen.unreachable !== undefined) return { needed: 0, stopped: unreachableMessage(http.baseUrl, seen.unreachable), stoppedBy: 'unreachable' };
    const needed = Math.min(estimateRequests(checks, seen.people, profile), options.maxRequests ?? Infinity);
    const plan: Plan = { needed, remaining: seen.remaining, reopensIn: seen.reopensIn };
    if (seen.remaining === undefined || seen.remaining >= needed) return plan;
    const message = shortBudgetMessage(needed, seen.remaining, seen.reopensIn);
    if (!options.wait) return { ...plan, stopped: message, stoppedBy: 'budget' };
    const seconds = seen.reopensIn ?? 60;
    options.onWait?.(`${message.replace(/^Not started: /, 'Waiting: ')} Waiting ${seconds} s.`);
    await options.sleep(seconds * 1000 + 1000);
  }
}
