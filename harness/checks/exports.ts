import type { CheckContext } from '../context.ts';
import type { Reply } from '../http.ts';
import type { Check } from '../types.ts';
import { CsvError, parseCsv } from './csv.ts';

const START = 'POST /v1/exports';
const POLL = 'GET /v1/exports/{jobId}';
const STATES = 'States and transitions';
const LIMITS = 'Limits';
const FIELDS = 'Resources and their fields';

/** Export job timestamps: ISO 8601 with an explicit numeric offset instead of `Z`. */
const WITH_OFFSET = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d+)?([+-])(\d\d):(\d\d)$/;

/** The link lifetime the spec states, from completedAt. */
const LINK_SECONDS = 900;

/** A job this run started and saw to its end. */
interface Job {
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
}

/**
 * What the export checks share within one run: the jobs already completed (keyed by what they
 * asked for), so that each is started once, and every `processing` poll seen along the way.
 */
interface State {
  jobs: Map<string, Promise<Job>>;
  processing: { jobId: string; reply: Reply }[];
}
const states = new WeakMap<CheckContext, State>();

function state(t: CheckContext): State {
  let s = states.get(t);
  if (!s) states.set(t, (s = { jobs: new Map(), processing: [] }));
  return s;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The server's clock from a reply's `Date` header, in epoch ms (whole seconds), if it sent one. */
function serverTime(reply: Reply): number | undefined {
  const date = reply.headers.get('date');
  if (!date) return undefined;
  const ms = Date.parse(date);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Epoch ms of an export timestamp in the offset shape, or undefined when it is not a real one. */
function parseOffsetTime(text: unknown): number | undefined {
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
const jobPath = (jobId: string) => `/v1/exports/${encodeURIComponent(jobId)}`;

/** A download link as something the client can fetch: absolute as given, or relative to the base URL like statusUrl. */
function resolveLink(t: CheckContext, link: string): string {
  if (/^https?:\/\//i.test(link)) return link;
  if (link.startsWith('/')) return `${t.config.baseUrl}${link}`;
  return new URL(link, `${t.config.baseUrl}/`).href;
}

/** Fetches a download link without any API key. */
const download = (t: CheckContext, link: string) => t.send('GET', resolveLink(t, link), { key: null });

/**
 * Polls a job until it leaves `processing`: at once, then backing off to the suggested interval
 * (at most 5 s, so small accounts finish quickly), for at most profile.exportTimeoutSeconds.
 */
async function waitForJob(t: CheckContext, jobId: string, pollAfterSeconds: unknown): Promise<{ polls: Reply[]; final: any }> {
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
async function settle(t: CheckContext, reply: Reply): Promise<void> {
  const jobId = reply.status === 202 ? reply.body?.jobId : undefined;
  if (typeof jobId !== 'string') return;
  await waitForJob(t, jobId, reply.body?.pollAfterSeconds).catch(() => undefined);
}

async function totalPeople(t: CheckContext): Promise<number | undefined> {
  const reply = await t.get('/v1/stats');
  const n = reply.body?.data?.totalPeople;
  return reply.status === 200 && Number.isInteger(n) ? n : undefined;
}

/**
 * Starts an export with this body (undefined: none) and waits for it to complete; once per run
 * for each body, so the checks share a few jobs and never hold more than one slot at a time.
 */
function exportOf(t: CheckContext, body: unknown, raw?: string): Promise<Job> {
  const memoKey = raw !== undefined ? `raw:${raw}` : body === undefined ? 'none' : JSON.stringify(body);
  const jobs = state(t).jobs;
  let job = jobs.get(memoKey);
  if (!job) {
    // A job that failed is remembered too: starting it again would only spend slots and budget.
    job = (async (): Promise<Job> => {
      const peopleBefore = await totalPeople(t);
      const start =
        raw !== undefined
          ? await t.send('POST', '/v1/exports', { body: raw, headers: { 'content-type': 'application/json' } })
          : await t.startExport(body);
      const what = `POST /v1/exports with ${raw !== undefined ? `body ${JSON.stringify(raw)}` : body === undefined ? 'no body' : JSON.stringify(body)}`;
      if (start.status === 429) t.skip(`${what} answered 429 ${start.body?.error?.code ?? ''}: no export could be started`);
      t.status(start, 202, what);
      const jobId = start.body?.jobId;
      t.assert(typeof jobId === 'string' && jobId !== '', `${what} has no jobId: ${start.text.slice(0, 200)}`);
      const { polls, final } = await waitForJob(t, jobId, start.body?.pollAfterSeconds);
      const completedSeenAt = performance.now();
      const peopleAfter = await totalPeople(t);
      return { jobId, start, polls, final, completedSeenAt, peopleBefore, peopleAfter };
    })();
    jobs.set(memoKey, job);
  }
  return job;
}

/** The export of everything (no body): the job most checks read. */
const fullExport = (t: CheckContext) => exportOf(t, undefined);
const HOT_ONLY = { isHotLead: true };

function rowCountOf(t: CheckContext, job: Job, what: string): number {
  const n = job.final.rowCount;
  t.assert(Number.isInteger(n) && n >= 0, `${what}: rowCount is ${JSON.stringify(n)}`);
  return n;
}

/** Every way of spoiling a link that a signed (or otherwise unguessable) link must refuse. */
function tamperings(link: string, otherJobId: { from: string; to: string } | undefined): { how: string; url: string }[] {
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
function refused(t: CheckContext, reply: Reply, what: string): void {
  t.assert(reply.status >= 400 && reply.status < 500, `${what}: expected a 4xx refusal, got ${reply.status} ${reply.text.slice(0, 120)}`);
}

/** The job shape while processing: jobId, status and createdAt, and none of the completion fields. */
function processingProblems(body: any): string[] {
  const problems: string[] = [];
  if (typeof body?.jobId !== 'string') problems.push(`jobId ${JSON.stringify(body?.jobId)}`);
  if (body?.status !== 'processing') problems.push(`status ${JSON.stringify(body?.status)}`);
  if (typeof body?.createdAt !== 'string') problems.push(`createdAt ${JSON.stringify(body?.createdAt)}`);
  for (const k of ['completedAt', 'downloadUrl', 'rowCount', 'error']) if (body?.[k] !== undefined) problems.push(`${k} present while processing`);
  return problems;
}

export const exportChecks: Check[] = [
  {
    id: 'exports.start-202-shape',
    section: START,
    title: 'POST /v1/exports with no body answers 202 with exactly jobId, status processing, statusUrl /v1/exports/{jobId} and an integer pollAfterSeconds',
    flags: ['exports'],
    async run(t: CheckContext) {
      const { start, jobId } = await fullExport(t);
      const body = start.body;
      const keys = Object.keys(body).sort();
      t.assert(keys.join() === 'jobId,pollAfterSeconds,status,statusUrl', `the 202 has fields ${keys.join(', ')}, not exactly jobId, pollAfterSeconds, status, statusUrl`);
      t.assert(body.status === 'processing', `the 202 has status ${JSON.stringify(body.status)}`);
      t.assert(body.statusUrl === `/v1/exports/${jobId}`, `the 202 has statusUrl ${JSON.stringify(body.statusUrl)}, not /v1/exports/${jobId}`);
      t.assert(Number.isInteger(body.pollAfterSeconds) && body.pollAfterSeconds >= 0, `the 202 has pollAfterSeconds ${JSON.stringify(body.pollAfterSeconds)}`);
    },
  },
  {
    id: 'exports.complete-shape',
    section: POLL,
    title: 'A complete job polls as jobId, status complete, createdAt, completedAt, downloadUrl, downloadUrlExpiresInSeconds 900, an integer rowCount and a boolean partial',
    flags: ['exports'],
    async run(t: CheckContext) {
      const { final, jobId } = await fullExport(t);
      const problems: string[] = [];
      if (final.jobId !== jobId) problems.push(`jobId ${JSON.stringify(final.jobId)}`);
      for (const k of ['createdAt', 'completedAt', 'downloadUrl']) if (typeof final[k] !== 'string' || final[k] === '') problems.push(`${k} ${JSON.stringify(final[k])}`);
      if (final.downloadUrlExpiresInSeconds !== LINK_SECONDS) problems.push(`downloadUrlExpiresInSeconds ${JSON.stringify(final.downloadUrlExpiresInSeconds)}, not 900`);
      if (!Number.isInteger(final.rowCount) || final.rowCount < 0) problems.push(`rowCount ${JSON.stringify(final.rowCount)}`);
      if (typeof final.partial !== 'boolean') problems.push(`partial ${JSON.stringify(final.partial)}`);
      if (final.error !== undefined) problems.push(`error ${JSON.stringify(final.error)} on a complete job`);
      t.assert(problems.length === 0, `the complete poll of ${jobId} has ${problems.join(', ')}`);
    },
  },
  {
    id: 'exports.timestamps-offset',
    section: FIELDS,
    title: 'Export createdAt and completedAt carry an explicit numeric offset instead of Z, and name the right instants',
    flags: ['exports'],
    async run(t: CheckContext) {
      const { final, start, polls } = await fullExport(t);
      const created = parseOffsetTime(final.createdAt);
      const completed = parseOffsetTime(final.completedAt);
      t.assert(created !== undefined, `createdAt ${JSON.stringify(final.createdAt)} is not a date-time with a numeric offset (e.g. +00:00)`);
      t.assert(completed !== undefined, `completedAt ${JSON.stringify(final.completedAt)} is not a date-time with a numeric offset (e.g. +00:00)`);
      t.assert(completed >= created, `completedAt ${final.completedAt} is before createdAt ${final.createdAt}`);
      for (const poll of polls) {
        if (poll.body?.createdAt !== final.createdAt) t.fail(`createdAt moved between polls: ${JSON.stringify(poll.body?.createdAt)}, then ${JSON.stringify(final.createdAt)}`);
      }
      // With the server's own clock (the Date header, whole seconds), a wrong offset shows as a shifted instant.
      const startedAt = serverTime(start);
      const lastPollAt = serverTime(polls[polls.length - 1]!);
      if (startedAt === undefined || lastPollAt === undefined) t.skip('the server sends no Date header, so the instants cannot be compared with its clock; the shapes held');
      const firstPollAt = serverTime(polls[0]!) ?? lastPollAt;
      const slack = 5000;
      t.assert(created >= startedAt - slack && created <= firstPollAt + slack, `createdAt ${final.createdAt} is not near the server's time of the start (${new Date(startedAt).toISOString()})`);
      t.assert(completed <= lastPollAt + slack, `completedAt ${final.completedAt} is after the server's time of the poll that saw it complete (${new Date(lastPollAt).toISOString()})`);
    },
  },
  {
    id: 'exports.download-csv',
    section: POLL,
    title: 'The downloadUrl works without an API key and returns RFC 4180 CSV with a header and exactly rowCount data rows',
    flags: ['exports'],
    async run(t: CheckContext) {
      const job = await fullExport(t);
      const rowCount = rowCountOf(t, job, 'the complete poll');
      const reply = await download(t, job.final.downloadUrl);
      t.status(reply, 200, `GET downloadUrl without an API key`);
      let records: string[][];
      try {
        records = parseCsv(reply.text);
      } catch (error) {
        if (error instanceof CsvError) t.fail(`the download is not RFC 4180 CSV: ${error.message}`);
        throw error;
      }
      t.assert(records.length > 0, 'the download is empty: not even a header row');
      const width = records[0]!.length;
      const ragged = records.findIndex((r) => r.length !== width);
      t.assert(ragged < 0, `record ${ragged + 1} of the CSV has ${records[ragged]?.length} fields, the header ${width}`);
      t.assert(records.length - 1 === rowCount, `the CSV holds ${records.length - 1} data rows after its header, but rowCount is ${rowCount}`);
    },
  },
  {
    id: 'exports.download-tampered',
    section: POLL,
    title: 'A download link changed in any character of its signature or query is refused',
    flags: ['exports'],
    async run(t: CheckContext) {
      const job = await fullExport(t);
      let other: { from: string; to: string } | undefined;
      try {
        other = { from: job.jobId, to: (await exportOf(t, HOT_ONLY)).jobId };
      } catch {
        other = undefined;
      }
      const link = resolveLink(t, job.final.downloadUrl);
      const variants = tamperings(link, other);
      if (variants.length === 0) t.skip(`the link ${link} has no query, hex token or job id to change`);
      for (const { how, url } of variants) refused(t, await t.send('GET', url, { key: null }), `downloadUrl with ${how}`);
      t.status(await download(t, job.final.downloadUrl), 200, 'the untouched downloadUrl, after the tampered ones');
    },
  },
  {
    id: 'exports.whole-dataset',
    section: START,
    title: 'An export with no filters holds every person, not one page: rowCount equals stats totalPeople',
    flags: ['exports'],
    async run(t: CheckContext) {
      const job = await fullExport(t);
      const rowCount = rowCountOf(t, job, 'the complete poll');
      const { peopleBefore, peopleAfter } = job;
      if (peopleBefore === undefined || peopleAfter === undefined) t.skip('GET /v1/stats gave no integer totalPeople around the export');
      if (peopleBefore !== peopleAfter) t.skip(`totalPeople moved from ${peopleBefore} to ${peopleAfter} while the export ran`);
      if (job.final.partial === true) {
        t.assert(rowCount <= peopleBefore, `the partial export holds ${rowCount} rows, more than the ${peopleBefore} people`);
        t.skip(`the export is partial (its meaning is not shown), so it need not hold all ${peopleBefore} people; it holds ${rowCount}`);
      }
      t.assert(rowCount === peopleBefore, `the export of everything holds ${rowCount} rows, but stats totalPeople is ${peopleBefore}`);
    },
  },
  {
    id: 'exports.complete-is-stable',
    section: STATES,
    title: 'A complete job stays complete: polled again, it reports the same createdAt, completedAt, rowCount and partial',
    flags: ['exports'],
    async run(t: CheckContext) {
      const { jobId, final, completedSeenAt } = await fullExport(t);
      // Let the server's clock pass a whole second, so a completedAt made up at read time shows.
      await sleep(Math.max(0, completedSeenAt + 1100 - performance.now()));
      const reply = await t.get(jobPath(jobId));
      t.status(reply, 200, `GET ${jobPath(jobId)} again`);
      const again = reply.body;
      for (const k of ['jobId', 'status', 'createdAt', 'completedAt', 'rowCount', 'partial', 'downloadUrlExpiresInSeconds']) {
        t.assert(again?.[k] === final[k], `polled again, ${k} is ${JSON.stringify(again?.[k])}, was ${JSON.stringify(final[k])}`);
      }
    },
  },
  {
    id: 'exports.filter-narrows',
    section: START,
    title: 'A filtered export ({isHotLead: true}) holds the matching people only: no more rows than the unfiltered one, fewer when someone is not a hot lead',
    flags: ['exports'],
    async run(t: CheckContext) {
      const all = rowCountOf(t, await fullExport(t), 'the unfiltered export');
      const hotJob = await exportOf(t, HOT_ONLY);
      const hot = rowCountOf(t, hotJob, 'the {isHotLead:true} export');
      t.assert(hot <= all, `the {isHotLead:true} export holds ${hot} rows, the unfiltered one ${all}`);
      const { rows } = await t.discover.walk('/v1/people', t.accountKey);
      const someCold = rows.some((p) => p?.isHotLead === false);
      const someHot = rows.some((p) => p?.isHotLead === true);
      if (!someCold && !someHot) t.skip('the people list shows no isHotLead values to compare with');
      if (someCold && (await fullExport(t)).final.partial !== true) t.assert(hot < all, `people who are not hot leads exist, yet the {isHotLead:true} export holds as many rows (${hot}) as the unfiltered one`);
      if (someHot) t.assert(hot > 0, 'hot leads exist, yet the {isHotLead:true} export holds no rows');
    },
  },
  {
    id: 'exports.array-as-comma-string',
    section: START,
    title: 'An array filter sent as a comma-separated string is accepted and selects what the JSON array selects',
    flags: ['exports'],
    async run(t: CheckContext) {
      const { rows } = await t.discover.walk('/v1/people', t.accountKey);
      const valuesOf = (field: string) => [...new Set(rows.map((p) => p?.[field]).filter((v): v is string => typeof v === 'string' && v !== '' && !v.includes(',')))];
      const choice = (
        [
          ['domains', 'domain'],
          ['regions', 'region'],
          ['trafficTypes', 'trafficType'],
        ] as const
      )
        .map(([filter, field]) => ({ filter, values: valuesOf(field).slice(0, 2) }))
        .find(({ values }) => values.length === 2);
      if (!choice) t.skip('no two distinct values of domain, region or trafficType among the people to filter by');
      const asArray = await exportOf(t, { [choice.filter]: choice.values });
      const asString = await exportOf(t, { [choice.filter]: choice.values.join(',') });
      const a = rowCountOf(t, asArray, `the ${choice.filter} array export`);
      const s = rowCountOf(t, asString, `the ${choice.filter} string export`);
      t.assert(s === a, `{${choice.filter}: ${JSON.stringify(choice.values.join(','))}} holds ${s} rows, {${choice.filter}: ${JSON.stringify(choice.values)}} holds ${a}`);
      if (a === 0) t.skip(`{${choice.filter}: ${JSON.stringify(choice.values)}} selected no one, so the comparison proves little`);
    },
  },
  {
    id: 'exports.empty-body',
    section: START,
    title: 'An empty body sent as application/json is accepted and exports everything',
    flags: ['exports'],
    async run(t: CheckContext) {
      const all = await fullExport(t);
      const empty = await exportOf(t, undefined, '');
      t.assert(
        rowCountOf(t, empty, 'the empty-body export') === rowCountOf(t, all, 'the no-body export'),
        `the empty-body export holds ${empty.final.rowCount} rows, the no-body export ${all.final.rowCount}`,
      );
    },
  },
  {
    id: 'exports.unknown-filter-400',
    section: START,
    title: 'An unknown body key is rejected with 400 bad_request whose message names the key',
    flags: ['exports'],
    async run(t: CheckContext) {
      for (const body of [{ harnessUnknownFilter: true }, { isHotLead: true, harnessOtherFilter: ['x'] }]) {
        const key = Object.keys(body).find((k) => k.startsWith('harness'))!;
        const reply = await t.startExport(body);
        await settle(t, reply);
        t.error(reply, 400, 'bad_request', `POST /v1/exports with ${JSON.stringify(body)}`);
        t.assert(String(reply.body.error.message).includes(key), `the 400 message ${JSON.stringify(reply.body.error.message)} does not name ${key}`);
      }
    },
  },
  {
    id: 'exports.bad-values-400',
    section: START,
    title: 'A filter value outside its allowed values or type is rejected with 400 bad_request',
    flags: ['exports'],
    async run(t: CheckContext) {
      for (const body of [{ timeframe: '1y' }, { visitCountMin: 0 }, { sortOrder: 'up' }, { crmStatus: 'x' }, { isHotLead: 'yes' }]) {
        const reply = await t.startExport(body);
        await settle(t, reply);
        t.error(reply, 400, 'bad_request', `POST /v1/exports with ${JSON.stringify(body)}`);
      }
    },
  },
  {
    id: 'exports.malformed-body-400',
    section: START,
    title: 'A body that is not a JSON object (malformed JSON, an array, a string) is rejected with 400 bad_request',
    flags: ['exports'],
    async run(t: CheckContext) {
      for (const raw of ['{"isHotLead": tru', '[]', '"all"']) {
        const reply = await t.send('POST', '/v1/exports', { body: raw, headers: { 'content-type': 'application/json' } });
        await settle(t, reply);
        t.error(reply, 400, 'bad_request', `POST /v1/exports with body ${raw}`);
      }
    },
  },
  {
    id: 'exports.unknown-job',
    section: POLL,
    title: 'Polling a jobId that was never issued answers an error envelope, not a job (which error is not shown)',
    flags: ['exports'],
    async run(t: CheckContext) {
      const { jobId } = await fullExport(t);
      // Shaped like a real id, so a format check alone cannot answer it.
      const last = jobId.slice(-1);
      const unknown = jobId.slice(0, -1) + (last === '0' ? '1' : /[0-9]/.test(last) ? '0' : last === 'a' ? 'b' : 'a');
      const reply = await t.get(jobPath(unknown));
      if (reply.status === 429 && reply.body?.error?.code === 'rate_limit_exceeded') t.skip(`GET ${jobPath(unknown)} was rate limited`);
      t.assert(reply.status >= 400 && reply.status < 500 && reply.status !== 401, `GET ${jobPath(unknown)}: expected a 4xx error, got ${reply.status} ${reply.text.slice(0, 200)}`);
      const error = reply.body?.error;
      t.assert(error && typeof error.code === 'string' && typeof error.message === 'string', `GET ${jobPath(unknown)}: no error envelope in ${reply.text.slice(0, 200)}`);
      t.assert(error.status === reply.status, `GET ${jobPath(unknown)}: error.status is ${JSON.stringify(error.status)}, the response ${reply.status}`);
    },
  },
  {
    id: 'exports.poll-processing-shape',
    section: POLL,
    title: 'A job polled while running shows jobId, status processing and createdAt, and none of the completion fields',
    flags: ['exports'],
    async run(t: CheckContext) {
      await fullExport(t);
      const seen = state(t).processing;
      if (seen.length === 0) t.skip('every export of this run was complete by its first poll, so no running job could be observed');
      for (const { jobId, reply } of seen) {
        const problems = processingProblems(reply.body);
        t.assert(problems.length === 0, `a processing poll of ${jobId} has ${problems.join(', ')}: ${reply.text.slice(0, 200)}`);
        t.assert(parseOffsetTime(reply.body.createdAt) !== undefined, `a processing poll of ${jobId} has createdAt ${JSON.stringify(reply.body.createdAt)}, not a date-time with a numeric offset`);
      }
    },
  },
  {
    id: 'exports.download-link-expires',
    section: POLL,
    title: 'The downloadUrl works until 900 seconds after completedAt, not from the time of reading, and is dead after',
    flags: ['exports', 'slow'],
    async run(t: CheckContext) {
      const { jobId, final } = await fullExport(t);
      const completed = parseOffsetTime(final.completedAt);
      t.assert(completed !== undefined, `completedAt ${JSON.stringify(final.completedAt)} is not a date-time with a numeric offset`);
      const expiry = completed + LINK_SECONDS * 1000;
      const links = [final.downloadUrl as string];
      const deadline = performance.now() + (t.profile.exportTimeoutSeconds + 960) * 1000;
      const iso = (ms: number) => new Date(ms).toISOString();
      let reread = false;
      let first: { real: number; server: number } | undefined;
      for (;;) {
        if (performance.now() > deadline) t.skip(`the server's clock did not reach completedAt + 901 s (${iso(expiry + 1000)}) within ${t.profile.exportTimeoutSeconds + 960} s`);
        const health = await t.get('/v1/health', { key: null });
        const now = serverTime(health);
        if (now === undefined) t.skip('GET /v1/health sends no Date header, so the server clock cannot be followed');
        first ??= { real: performance.now(), server: now };
        if (now < expiry - 5000) {
          // Far from the moment: sleep most of the way, then look again. The server's clock is
          // taken to run at least at real speed; how much faster is measured from the first sample
          // (a test server may run a fast clock), so a sleep never overshoots much.
          const elapsed = performance.now() - first.real;
          const rate = elapsed >= 1000 ? Math.max(1, (now - first.server) / elapsed) : undefined;
          await sleep(rate === undefined ? 1000 : Math.min(30_000, Math.max(1000, ((expiry - 5000 - now) / rate) * 0.9)));
          continue;
        }
        if (!reread) {
          // Read the job again late: a link from a later read must still die 900 s after completedAt.
          reread = true;
          const again = await t.get(jobPath(jobId));
          t.status(again, 200, `GET ${jobPath(jobId)} near the link's expiry`);
          t.assert(again.body?.completedAt === final.completedAt, `completedAt moved from ${final.completedAt} to ${JSON.stringify(again.body?.completedAt)}`);
          if (typeof again.body?.downloadUrl === 'string' && again.body.downloadUrl !== links[0]) links.push(again.body.downloadUrl);
        }
        let dead = 0;
        for (const link of links) {
          const reply = await download(t, link);
          // The download's own Date header says when the server judged it (whole seconds, so [at, at + 1 s)).
          const at = serverTime(reply) ?? now;
          const which = link === links[0] ? 'the downloadUrl' : 'the downloadUrl read again later';
          if (serverTime(reply) !== undefined && at + 1000 <= expiry) {
            t.status(reply, 200, `${which} at server time ${iso(at)}, before completedAt + 900 s (${iso(expiry)})`);
          } else if (at >= expiry + 1000) {
            refused(t, reply, `${which} at server time ${iso(at)}, after completedAt + 900 s (${iso(expiry)})`);
            dead++;
          }
        }
        if (dead === links.length) break;
        await sleep(1000);
      }
    },
  },
  {
    id: 'exports.three-running-limit',
    section: LIMITS,
    title: 'With three exports running a fourth gets 429 too_many_exports, and a slot frees once one finishes',
    flags: ['exports', 'destructive'],
    async run(t: CheckContext) {
      const started: Reply[] = [];
      try {
        const three = await Promise.all([0, 1, 2].map(() => t.startExport()));
        started.push(...three);
        const fourth = await t.startExport();
        started.push(fourth);
        for (const [i, reply] of three.entries()) {
          if (reply.status === 429 && reply.body?.error?.code === 'rate_limit_exceeded') t.skip('the hourly request budget is spent');
          t.status(reply, 202, `export ${i + 1} of the first three (no other export of the harness was running)`);
        }
        if (fourth.status === 429 && fourth.body?.error?.code === 'rate_limit_exceeded') t.skip('the hourly request budget is spent');
        if (fourth.status === 202) {
          const states = await Promise.all(three.map((r) => t.get(jobPath(r.body.jobId))));
          const running = states.filter((s) => s.body?.status === 'processing').length;
          t.assert(running < 3, 'a fourth export was accepted (202) while the first three were all still processing');
          t.skip(`the exports finish too fast to hold three running: only ${running} of the first three were still processing when the fourth was accepted`);
        }
        t.error(fourth, 429, 'too_many_exports', 'a fourth export while three run');
        for (const reply of three) await waitForJob(t, reply.body.jobId, reply.body.pollAfterSeconds);
        const after = await t.startExport();
        started.push(after);
        t.status(after, 202, 'an export once the three have finished');
      } finally {
        for (const reply of started) await settle(t, reply);
      }
    },
  },
];
