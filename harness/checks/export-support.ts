/** What the export checks share: section names, job polling, download links and their tampering. */
import type { CheckContext } from '../context.ts';
import type { Reply } from '../http.ts';
import { CsvError, parseCsv } from './csv.ts';

export const START = 'POST /v1/exports';
export const POLL = 'GET /v1/exports/{jobId}';
export const STATES = 'States and transitions';
export const LIMITS = 'Limits';
export const FIELDS = 'Resources and their fields';

/** Export job timestamps: ISO 8601 with an explicit numeric offset instead of `Z`. */
const WITH_OFFSET = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d+)?([+-])(\d\d):(\d\d)$/;

/** The link lifetime the spec states, from completedAt. */
export const LINK_SECONDS = 900;

/** A job this run started and saw to its end. */
export interface Job {
  jobId: string;
  /** The 202 that started it. */
  start: Reply;
  /** Every poll, in order; the last is the `complete` one. */
  polls: Reply[];
  /** The body of the `complete` poll. */
  final: any;
  /** When (performance.now()) the poll that saw it complete was answered. */
  completedSeenAt: number;
  /** stats.totalPeople just before the start and just after completion, when readable. */
  peopleBefore?: number;
  peopleAfter?: number;
  /**
   * The GET /v1/stats replies on either side of the job (their rate-limit headers bracket the
   * start and every poll, so the budget an export spent can be told without another request).
   */
  statsBefore: Reply;
  statsAfter: Reply;
}

/**
 * What the export checks share within one run: the jobs already completed (keyed by what they
 * asked for), so that each is started once, and every `processing` poll seen along the way.
 */
export interface State {
  jobs: Map<string, Promise<Job>>;
  processing: { jobId: string; reply: Reply }[];
}
const states = new WeakMap<CheckContext, State>();

export function state(t: CheckContext): State {
  let s = states.get(t);
  if (!s) states.set(t, (s = { jobs: new Map(), processing: [] }));
  return s;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The server's clock from a reply's `Date` header, in epoch ms (whole seconds), if it sent one. */
export function serverTime(reply: Reply): number | undefined {
  const date = reply.headers.get('date');
  if (!date) return undefined;
  const ms = Date.parse(date);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Epoch ms of an export timestamp in the offset shape, or undefined when it is not a real one. */
export function parseOffsetTime(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const m = WITH_OFFSET.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i]));
  const local = Date.UTC(y!, mo! - 1, d!, h!, mi!, s!);
  const back = new Date(local);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo! - 1 || back.getUTCDate() !== d || back.getUTCHours() !== h || back.getUTCMinutes() !== mi) return undefined;
  if (Number(m[9]) > 23 || Number(m[10]) > 59) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Which job a path names. */
export const jobPath = (jobId: string) => `/v1/exports/${encodeURIComponent(jobId)}`;

/** A download link as something the client can fetch: absolute as given, or relative to the base URL like statusUrl. */
export function resolveLink(t: CheckContext, link: string): string {
  if (/^https?:\/\//i.test(link)) return link;
  if (link.startsWith('/')) return `${t.config.baseUrl}${link}`;
  return new URL(link, `${t.config.baseUrl}/`).href;
}

/** Fetches a download link without any API key. */
export const download = (t: CheckContext, link: string) => t.send('GET', resolveLink(t, link), { key: null });

/** The download of a complete job, fetched once per run and shared by the checks that read its file. */
export function fileOf(t: CheckContext, job: Job): Promise<Reply> {
  return t.discover.once(`export file ${job.jobId}`, () => download(t, job.final.downloadUrl));
}

/** The records of a downloaded CSV (header first), or a failure naming what is not RFC 4180 in it. */
export function recordsOf(t: CheckContext, reply: Reply, what: string): string[][] {
  try {
    return parseCsv(reply.text);
  } catch (error) {
    if (error instanceof CsvError) t.fail(`${what} is not RFC 4180 CSV: ${error.message}`);
    throw error;
  }
}

/**
 * Polls a job until it leaves `processing`: at once, then backing off to the suggested interval
 * (at most 5 s, so small accounts finish quickly), for at most profile.exportTimeoutSeconds.
 */
export async function waitForJob(t: CheckContext, jobId: string, pollAfterSeconds: unknown): Promise<{ polls: Reply[]; final: any }> {
  const cap = 1000 * Math.min(5, Math.max(1, typeof pollAfterSeconds === 'number' && Number.isFinite(pollAfterSeconds) ? pollAfterSeconds : 5));
  const deadline = performance.now() + t.profile.exportTimeoutSeconds * 1000;
  const polls: Reply[] = [];
  let wait = 0;
  for (;;) {
    if (wait > 0) await sleep(wait);
    wait = Math.min(cap, Math.max(250, wait * 2));
    const reply = await t.get(jobPath(jobId));
    polls.push(reply);
    t.status(reply, 200, `GET ${jobPath(jobId)}`);
    const body = reply.body;
    t.assert(body?.jobId === jobId, `GET ${jobPath(jobId)} names job ${JSON.stringify(body?.jobId)}: ${reply.text.slice(0, 200)}`);
    if (body.status === 'processing') state(t).processing.push({ jobId, reply });
    else if (body.status === 'complete') return { polls, final: body };
    else if (body.status === 'failed') {
      t.fail(`export ${jobId} failed${typeof body.error === 'string' ? `: ${body.error}` : ', and the poll carries no error string'} (${reply.text.slice(0, 200)})`);
    } else t.fail(`GET ${jobPath(jobId)} has status ${JSON.stringify(body.status)}, not processing, complete or failed`);
    if (performance.now() > deadline) t.fail(`export ${jobId} was still processing after ${t.profile.exportTimeoutSeconds} s (profile exportTimeoutSeconds)`);
  }
}

/** Waits, without judging, for a job that a check started by mistake, so it does not hold an export slot. */
export async function settle(t: CheckContext, reply: Reply): Promise<void> {
  const jobId = reply.status === 202 ? reply.body?.jobId : undefined;
  if (typeof jobId !== 'string') return;
  await waitForJob(t, jobId, reply.body?.pollAfterSeconds).catch(() => undefined);
}

/** Reads GET /v1/stats: the reply, and its totalPeople when it is an integer. */
export async function totalPeople(t: CheckContext): Promise<{ reply: Reply; people: number | undefined }> {
  const reply = await t.get('/v1/stats');
  const n = reply.body?.data?.totalPeople;
  return { reply, people: reply.status === 200 && Number.isInteger(n) ? n : undefined };
}

/**
 * Starts an export with this body (undefined: none) and waits for it to complete; once per run
 * for each body, so the checks share a few jobs and never hold more than one slot at a time.
 */
export function exportOf(t: CheckContext, body: unknown, raw?: string): Promise<Job> {
  const memoKey = raw !== undefined ? `raw:${raw}` : body === undefined ? 'none' : JSON.stringify(body);
  const jobs = state(t).jobs;
  let job = jobs.get(memoKey);
  if (!job) {
    // A job that failed is remembered too: starting it again would only spend slots and budget.
    job = (async (): Promise<Job> => {
      const before = await totalPeople(t);
      const start = await t.startExport(body, { raw });
      const what = `POST /v1/exports with ${raw !== undefined ? `body ${JSON.stringify(raw)}` : body === undefined ? 'no body' : JSON.stringify(body)}`;
      if (start.status === 429) t.skip(`${what} answered 429 ${start.body?.error?.code ?? ''}: no export could be started`);
      t.status(start, 202, what);
      const jobId = start.body?.jobId;
      t.assert(typeof jobId === 'string' && jobId !== '', `${what} has no jobId: ${start.text.slice(0, 200)}`);
      const { polls, final } = await waitForJob(t, jobId, start.body?.pollAfterSeconds);
      const completedSeenAt = performance.now();
      const after = await totalPeople(t);
      return { jobId, start, polls, final, completedSeenAt, peopleBefore: before.people, peopleAfter: after.people, statsBefore: before.reply, statsAfter: after.reply };
    })();
    jobs.set(memoKey, job);
  }
  return job;
}

/** The export of everything (no body): the job most checks read. */
export const fullExport = (t: CheckContext) => exportOf(t, undefined);
export const HOT_ONLY = { isHotLead: true };

export function rowCountOf(t: CheckContext, job: Job, what: string): number {
  const n = job.final.rowCount;
  t.assert(Number.isInteger(n) && n >= 0, `${what}: rowCount is ${JSON.stringify(n)}`);
  return n;
}

/** Every way of spoiling a link that a signed (or otherwise unguessable) link must refuse. */
export function tamperings(link: string, otherJobId: { from: string; to: string } | undefined): { how: string; url: string }[] {
  const url = new URL(link);
  const out: { how: string; url: string }[] = [];
  const flip = (c: string) => (c === '0' ? '1' : /[A-F]/.test(c) ? (c === 'A' ? 'B' : 'A') : '0');
  const hexIn = (part: string) => {
    let best: RegExpExecArray | undefined;
    for (const m of part.matchAll(/[0-9a-fA-F]{16,}/g)) if (!best || m[0].length > best[0].length) best = m as RegExpExecArray;
    return best;
  };
  for (const part of ['search', 'pathname'] as const) {
    const m = hexIn(url[part]);
    if (!m) continue;
    const at = m.index + Math.floor(m[0].length / 2);
    const changed = new URL(link);
    changed[part] = url[part].slice(0, at) + flip(url[part][at]!) + url[part].slice(at + 1);
    out.push({ how: `one hex character of the ${part === 'search' ? 'query' : 'path'} changed`, url: changed.href });
    break;
  }
  if (url.search.length > 1) {
    const last = url.search.slice(-1);
    const spoiled = new URL(link);
    spoiled.search = url.search.slice(0, -1) + (last.toLowerCase() === 'a' ? 'b' : 'a');
    out.push({ how: 'the last character of the query changed', url: spoiled.href });
    for (const [name, value] of url.searchParams) {
      if (!/^\d{1,15}$/.test(value)) continue;
      const bumped = new URL(link);
      bumped.searchParams.set(name, String(Number(value) + 1));
      out.push({ how: `query parameter ${name} moved from ${value} to ${Number(value) + 1}`, url: bumped.href });
    }
    const bare = new URL(link);
    bare.search = '';
    out.push({ how: 'the query removed', url: bare.href });
  }
  if (otherJobId && link.includes(otherJobId.from)) {
    out.push({ how: `the job id swapped for another completed job's (${otherJobId.to})`, url: link.split(otherJobId.from).join(otherJobId.to) });
  }
  return out;
}

/** Fails unless a download link answered a client error (refused), rather than the file or a server fault. */
export function refused(t: CheckContext, reply: Reply, what: string): void {
  t.assert(reply.status >= 400 && reply.status < 500, `${what}: expected a 4xx refusal, got ${reply.status} ${reply.text.slice(0, 120)}`);
}

/** The job shape while processing: jobId, status and createdAt, and none of the completion fields. */
export function processingProblems(body: any): string[] {
  const problems: string[] = [];
  if (typeof body?.jobId !== 'string') problems.push(`jobId ${JSON.stringify(body?.jobId)}`);
  if (body?.status !== 'processing') problems.push(`status ${JSON.stringify(body?.status)}`);
  if (typeof body?.createdAt !== 'string') problems.push(`createdAt ${JSON.stringify(body?.createdAt)}`);
  for (const k of ['completedAt', 'downloadUrl', 'rowCount', 'error']) if (body?.[k] !== undefined) problems.push(`${k} present while processing`);
  return problems;
}
