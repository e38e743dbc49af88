import type { CheckContext } from '../context.ts';
import type { Reply } from '../http.ts';
import type { Check } from '../types.ts';
import { START, POLL, STATES, LIMITS, FIELDS, LINK_SECONDS, sleep, serverTime, parseOffsetTime, jobPath, resolveLink, download, fileOf, recordsOf, waitForJob, settle, exportOf, fullExport, HOT_ONLY, rowCountOf, tamperings, refused } from './export-support.ts';

/** Export jobs: starting, polling, completing, and the CSV behind the download link. */
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
      // Under a mounted base URL (https://host/api) the path carries the mount: /api/v1/exports/{id}.
      const mount = new URL(t.config.baseUrl).pathname.replace(/\/+$/, '');
      const expected = `${mount}/v1/exports/${jobId}`;
      const absolute = `${t.config.baseUrl}/v1/exports/${jobId}`;
      t.assert(body.statusUrl === expected || body.statusUrl === absolute, `the 202 has statusUrl ${JSON.stringify(body.statusUrl)}, not ${expected}`);
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
      if (startedAt === undefined || lastPollAt === undefined) t.notApplicable('the server sends no Date header, so the instants cannot be compared with its clock; the shapes held');
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
      const reply = await fileOf(t, job);
      t.status(reply, 200, `GET downloadUrl without an API key`);
      const records = recordsOf(t, reply, 'the download');
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
      if (variants.length === 0) t.notApplicable(`the link ${link} has no query, hex token or job id to change`);
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
      if (peopleBefore === undefined || peopleAfter === undefined) t.notApplicable('GET /v1/stats gave no integer totalPeople around the export');
      if (peopleBefore !== peopleAfter) t.notApplicable(`totalPeople moved from ${peopleBefore} to ${peopleAfter} while the export ran`);
      if (job.final.partial === true) {
        t.assert(rowCount <= peopleBefore, `the partial export holds ${rowCount} rows, more than the ${peopleBefore} people`);
        t.notApplicable(`the export is partial (its meaning is not shown), so it need not hold all ${peopleBefore} people; it holds ${rowCount}`);
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
        if (performance.now() > deadline) t.notApplicable(`the server's clock did not reach completedAt + 901 s (${iso(expiry + 1000)}) within ${t.profile.exportTimeoutSeconds + 960} s`);
        const health = await t.get('/v1/health', { key: null });
        const now = serverTime(health);
        if (now === undefined) t.notApplicable('GET /v1/health sends no Date header, so the server clock cannot be followed');
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
          t.notApplicable(`the exports finish too fast to hold three running: only ${running} of the first three were still processing when the fourth was accepted`);
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
