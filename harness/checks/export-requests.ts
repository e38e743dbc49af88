import type { CheckContext } from '../context.ts';
import type { Check } from '../types.ts';
import { START, POLL, state, parseOffsetTime, jobPath, settle, exportOf, fullExport, HOT_ONLY, rowCountOf, processingProblems } from './export-support.ts';
import { accountPeople } from './list-support.ts';
import { unknownIdLike } from './resource-fields.ts';

/** Export requests: what the filters select, which bodies are refused, and jobs that do not exist. */
export const exportRequestChecks: Check[] = [
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
      const { rows } = await accountPeople(t);
      const someCold = rows.some((p) => p?.isHotLead === false);
      const someHot = rows.some((p) => p?.isHotLead === true);
      if (!someCold && !someHot) t.notApplicable('the people list shows no isHotLead values to compare with');
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
      const { rows } = await accountPeople(t);
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
      if (!choice) t.notApplicable('no two distinct values of domain, region or trafficType among the people to filter by');
      const asArray = await exportOf(t, { [choice.filter]: choice.values });
      const asString = await exportOf(t, { [choice.filter]: choice.values.join(',') });
      const a = rowCountOf(t, asArray, `the ${choice.filter} array export`);
      const s = rowCountOf(t, asString, `the ${choice.filter} string export`);
      t.assert(s === a, `{${choice.filter}: ${JSON.stringify(choice.values.join(','))}} holds ${s} rows, {${choice.filter}: ${JSON.stringify(choice.values)}} holds ${a}`);
      if (a === 0) t.notApplicable(`{${choice.filter}: ${JSON.stringify(choice.values)}} selected no one, so the comparison proves little`);
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
        const reply = await t.startExport(undefined, { raw });
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
      const unknown = unknownIdLike(jobId, new Set([jobId]));
      const reply = await t.get(jobPath(unknown));
      if (reply.status === 429 && reply.body?.error?.code === 'rate_limit_exceeded') t.skip(`GET ${jobPath(unknown)} was rate limited`);
      t.assert(reply.status >= 400 && reply.status < 500 && reply.status !== 401, `GET ${jobPath(unknown)}: expected a 4xx error, got ${reply.status} ${reply.text.slice(0, 200)}`);
      t.envelope(reply, `GET ${jobPath(unknown)}`);
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
      if (seen.length === 0) t.notApplicable('every export of this run was complete by its first poll, so no running job could be observed');
      for (const { jobId, reply } of seen) {
        const problems = processingProblems(reply.body);
        t.assert(problems.length === 0, `a processing poll of ${jobId} has ${problems.join(', ')}: ${reply.text.slice(0, 200)}`);
        t.assert(parseOffsetTime(reply.body.createdAt) !== undefined, `a processing poll of ${jobId} has createdAt ${JSON.stringify(reply.body.createdAt)}, not a date-time with a numeric offset`);
      }
    },
  },
];
