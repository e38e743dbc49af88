import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, errorCode, replyOf, runExport } from '../support/client.ts';
import { EXPORT_COLUMNS, parseCsv, personFromCsv } from '../support/csv.ts';
import { Gate } from '../support/gate.ts';
import { MATRIX, serveWorld, type Client } from '../support/targets.ts';
import { createWorld, type World } from '../support/world.ts';

const OFFSET_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/;
const JSON_HEADERS = { 'content-type': 'application/json' };

describe.each(MATRIX)('exports ($name)', (target) => {
  let world: World;
  let gate: Gate;
  let client: ReturnType<typeof clientFor>;
  let call: (path: string, init?: RequestInit) => Promise<Response>;
  let close: () => Promise<void>;

  /** Starts an export with a JSON body (or none) using the account key. */
  const start = (body?: unknown, key = world.accountKey) =>
    client.send('POST', '/v1/exports', key, body === undefined ? undefined : JSON.stringify(body), body === undefined ? {} : JSON_HEADERS);
  /** Lets every held job run to its end. */
  const release = async () => {
    gate.open();
    await world.api.exportsIdle();
    gate.close();
  };
  /** Lets every held job run to its end, then polls it. */
  const finish = async (jobId: string) => {
    await release();
    return client.get(`/v1/exports/${jobId}`, world.accountKey);
  };
  /** Runs an export with the account key to its end and reads its file. */
  const run = (filters?: Record<string, unknown>) => runExport(client, world.accountKey, filters, { idle: release });
  /** Fetches a download link the way a browser would: no key. */
  const download = (url: string) => client.download(url);

  beforeAll(async () => {
    gate = new Gate();
    world = await createWorld({ exports: { pace: gate.pace, batchRows: 16 }, backend: target.backend });
    const started = await target.start(world.api);
    call = started.call;
    client = clientFor(call);
    close = async () => (await started.close(), await world.close());
  });
  afterAll(() => close());

  it('starts with 202 and the spec shape, then polls as processing with createdAt in +00:00', async () => {
    const reply = await start();
    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({ jobId: expect.stringMatching(/^exp_[0-9a-f]{24}$/), status: 'processing', statusUrl: `/v1/exports/${reply.body.jobId}`, pollAfterSeconds: 5 });
    const poll = await client.get(reply.body.statusUrl, world.accountKey);
    expect(poll.body).toEqual({ jobId: reply.body.jobId, status: 'processing', createdAt: '2026-11-21T12:00:00+00:00' });
    await finish(reply.body.jobId);
  });

  it('completes with every field, a key-less download link, and a CSV that equals the list endpoint', async () => {
    const { body } = await start();
    world.clock.advance(30);
    const done = await finish(body.jobId);
    expect(done.body).toEqual({
      jobId: body.jobId,
      status: 'complete',
      createdAt: expect.stringMatching(OFFSET_TIME),
      completedAt: '2026-11-21T12:00:30+00:00',
      downloadUrl: expect.stringMatching(/\/v1\/exports\/exp_\w+\/download\?expires=\d+&signature=[0-9a-f]{64}$/),
      downloadUrlExpiresInSeconds: 900,
      rowCount: 90,
      partial: false,
    });
    const res = await download(done.body.downloadUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="service_people_2026-11-21.csv"');
    const text = await res.text();
    expect(text.endsWith('\r\n')).toBe(true);
    const csv = await parseCsv(text);
    expect(csv.headers).toEqual([...EXPORT_COLUMNS]);
    expect(csv.rows).toHaveLength(done.body.rowCount);
    const listed = await client.walk('/v1/people', world.accountKey);
    expect(csv.rows.map(personFromCsv)).toEqual(listed.rows);
  });

  it('exports the same people, in the same order, as the list endpoint given the same filters', async () => {
    for (const [filters, query] of [
      [{ domains: ['alpha.example'] }, 'domain=alpha.example'],
      [{ domains: 'beta.example' }, 'domain=beta.example'],
      [{ isHotLead: true }, 'hot_leads=true'],
      [{ domains: ['shop.alpha.example', 'gamma.example'], isHotLead: true }, null],
    ] as const) {
      const { job, csv } = await run(filters);
      const people = csv.rows.map(personFromCsv);
      expect(job.rowCount).toBe(people.length);
      if (query) expect(people).toEqual((await client.walk(`/v1/people?${query}`, world.accountKey)).rows);
      else expect(people.every((p) => p.isHotLead && ['shop.alpha.example', 'gamma.example'].includes(p.domain))).toBe(true);
      expect(people.length).toBeGreaterThan(0);
    }
  });

  it('orders by sortBy and sortOrder, and names the file from a sanitised filename', async () => {
    const { file, csv } = await run({ sortBy: 'visitCount', sortOrder: 'asc', filename: '../Q4 "leads"; report.CSV' });
    expect(file.headers.get('content-disposition')).toBe('attachment; filename="Q4_leads_report.csv"');
    const counts = csv.rows.map((r) => Number(r.visitCount));
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
  });

  it('neutralises cells a spreadsheet would run as a formula', async () => {
    await world.api.admin.loadPeople('acc_a', [
      { id: 'per_formula', firstName: '=HYPERLINK("http://evil.example","x")', lastName: '+1+1', title: '@SUM(A1)', company: '-2', visits: [{ domain: 'gamma.example', visitCount: 1, firstSeen: '2026-11-21T11:00:00Z', lastSeen: '2026-11-21T11:59:59Z' }] },
    ]);
    const { csv } = await run({ search: 'hyperlink' });
    expect(csv.rows).toHaveLength(1);
    const row = csv.rows[0]!;
    expect(row.firstName).toBe(`'=HYPERLINK("http://evil.example","x")`);
    expect([row.lastName, row.title, row.company]).toEqual(["'+1+1", "'@SUM(A1)", "'-2"]);
  });

  it('serves the link until 900 seconds after completedAt: one second before works, the second it expires it does not', async () => {
    const { body } = await start({ domains: ['gamma.example'] });
    const done = await finish(body.jobId);
    const completedAt = Date.parse(done.body.completedAt) / 1000;
    expect(Number(new URL(done.body.downloadUrl).searchParams.get('expires'))).toBe(completedAt + 900);
    world.clock.advance(899);
    const before = await download(done.body.downloadUrl);
    expect(before.status).toBe(200);
    await before.arrayBuffer();
    // The link's lifetime runs from completedAt, not from when it was read.
    expect((await client.get(`/v1/exports/${body.jobId}`, world.accountKey)).body.downloadUrl).toBe(done.body.downloadUrl);
    world.clock.advance(1);
    const dead = await replyOf(await download(done.body.downloadUrl));
    expect(dead.status).toBe(403);
    expect(errorCode(dead)).toBe('forbidden');
    // Polling afterwards still shows the same, now dead, link.
    const after = await client.get(`/v1/exports/${body.jobId}`, world.accountKey);
    expect(after.status).toBe(200);
    expect(after.body).toEqual(done.body);
  });

  it('refuses a tampered link: another signature, another expiry, another job', async () => {
    const first = await finish((await start()).body.jobId);
    const second = await finish((await start()).body.jobId);
    const url = new URL(first.body.downloadUrl);
    const expires = Number(url.searchParams.get('expires'));
    const signature = url.searchParams.get('signature')!;
    const otherJob = new URL(second.body.downloadUrl).pathname.split('/')[3];
    for (const path of [
      `${url.pathname}?expires=${expires}&signature=${signature.replace(/.$/, (c) => (c === '0' ? '1' : '0'))}`,
      `${url.pathname}?expires=${expires + 3600}&signature=${signature}`,
      `/v1/exports/${otherJob}/download?expires=${expires}&signature=${signature}`,
      `${url.pathname}?expires=${expires}`,
      `${url.pathname}`,
    ]) {
      expect((await call(path)).status, path).toBe(403);
    }
  });

  it('refuses another spelling of the signed expiry exactly as it refuses a forged link', async () => {
    const done = await finish((await start()).body.jobId);
    const url = new URL(done.body.downloadUrl);
    const expires = url.searchParams.get('expires')!;
    const signature = url.searchParams.get('signature')!;
    const forged = await replyOf(await call(`${url.pathname}?expires=${Number(expires) + 1}&signature=${signature}`));
    expect(forged.status).toBe(403);
    for (const spelling of [`${expires}.0`, `%2B${expires}`, `0${expires}`, `${expires}e0`, `%20${expires}`, `${Number(expires) / 10}e1`]) {
      const path = `${url.pathname}?expires=${spelling}&signature=${signature}`;
      const response = await call(path);
      expect(response.status, path).toBe(403);
      expect(await response.json(), path).toEqual(forged.body);
    }
    expect((await download(done.body.downloadUrl)).status).toBe(200);
  });

  it('allows three running exports per account, refuses a fourth with too_many_exports, and frees a slot on completion', async () => {
    const jobs = [];
    for (let i = 0; i < 3; i++) jobs.push((await start()).body.jobId);
    const fourth = await start();
    expect(fourth.status).toBe(429);
    expect(errorCode(fourth)).toBe('too_many_exports');
    const other = await client.send('POST', '/v1/exports', world.otherAccountKey);
    expect(other.status).toBe(202);
    await finish(jobs[0]);
    const after = await start();
    expect(after.status).toBe(202);
    await finish(after.body.jobId);
  });

  it('counts export requests against the hourly limit', async () => {
    const before = Number((await client.get('/v1/stats', world.accountKey)).headers.get('x-ratelimit-remaining'));
    const reply = await start({ regions: ['EMEA'] });
    expect(Number(reply.headers.get('x-ratelimit-remaining'))).toBe(before - 1);
    await finish(reply.body.jobId);
  });

  it('refuses domain-scoped keys with 403 scope_not_supported, for starting and polling', async () => {
    const job = (await start()).body.jobId;
    const key = world.scopedKeys['alpha.example'];
    for (const reply of [await start(undefined, key), await start({ isHotLead: true }, key), await client.get(`/v1/exports/${job}`, key)]) {
      expect(reply.status).toBe(403);
      expect(errorCode(reply)).toBe('scope_not_supported');
    }
    await finish(job);
  });

  it('rejects a malformed body, a wrong content type, unknown keys and bad values with 400 bad_request naming them', async () => {
    const raw = (body: string, headers: Record<string, string> = JSON_HEADERS) => client.send('POST', '/v1/exports', world.accountKey, body, headers);
    const cases: [Promise<any>, string][] = [
      [raw('{"timeframe":'), 'JSON'],
      [raw('[]'), 'object'],
      [raw('"all"'), 'object'],
      [raw('{"isHotLead":true}', { 'content-type': 'text/plain' }), 'Content-Type'],
      [start({ colour: 'red' }), 'colour'],
      [start({ timeframe: '1y' }), 'timeframe'],
      [start({ dateField: 'createdAt' }), 'dateField'],
      [start({ crmStatus: 'lead' }), 'crmStatus'],
      [start({ sortBy: 'random' }), 'sortBy'],
      [start({ sortOrder: 'up' }), 'sortOrder'],
      [start({ isHotLead: 'yes' }), 'isHotLead'],
      [start({ multiClientOnly: 1 }), 'multiClientOnly'],
      [start({ visitCountMin: 0 }), 'visitCountMin'],
      [start({ visitCountMin: 2.5 }), 'visitCountMin'],
      [start({ industries: [1, 2] }), 'industries'],
      [start({ regions: 'EMEA' + ',x'.repeat(101) }), 'regions'],
      [start({ domains: ['not a domain'] }), 'domains'],
      [start({ domains: [] }), 'domains'],
      [start({ regions: ',' }), 'regions'],
      [start({ pages: ' , ' }), 'pages'],
      [start({ search: '' }), 'search'],
      [start({ filename: 'x'.repeat(201) }), 'filename'],
      [raw(JSON.stringify({ search: 'x'.repeat(70_000) })), 'bytes'],
    ];
    for (const [pending, named] of cases) {
      const reply = await pending;
      expect(reply.status, named).toBe(400);
      expect(errorCode(reply), named).toBe('bad_request');
      expect(reply.body.error.message, named).toContain(named);
    }
    // None of those started a job: the account still has all three slots.
    const jobs = [(await start()).body.jobId, (await start()).body.jobId, (await start()).body.jobId];
    expect(jobs.every(Boolean)).toBe(true);
    for (const job of jobs) await finish(job);
  });

  it('accepts an empty body with or without a content type, and array filters as comma-separated strings', async () => {
    const empty = await client.send('POST', '/v1/exports', world.accountKey, '', JSON_HEADERS);
    expect(empty.status).toBe(202);
    const commas = await start({ domains: 'alpha.example, beta.example', regions: 'EMEA' });
    const arrays = await start({ domains: ['alpha.example', 'beta.example'], regions: ['EMEA'] });
    const [a, b] = [await finish(commas.body.jobId), await finish(arrays.body.jobId)];
    expect(a.body.rowCount).toBe(b.body.rowCount);
    expect(a.body.rowCount).toBeGreaterThan(0);
    await finish(empty.body.jobId);
  });

  it('completes an export that matches nobody: rowCount 0, not partial, a file of the header row alone', async () => {
    for (const filters of [{ search: 'zzzz-no-such' }, { domains: ['no-such-site.example'] }]) {
      const { job, text, csv } = await run(filters);
      expect(job, JSON.stringify(filters)).toMatchObject({ status: 'complete', rowCount: 0, partial: false });
      expect(text, JSON.stringify(filters)).toBe(`${EXPORT_COLUMNS.join(',')}\r\n`);
      expect(csv.rows).toEqual([]);
    }
  });

  it('answers 404 for an unknown job, another account’s job, and a job past its 7 days', async () => {
    const job = (await start()).body.jobId;
    const done = await finish(job);
    expect((await client.get('/v1/exports/exp_nope', world.accountKey)).status).toBe(404);
    const foreign = await client.get(`/v1/exports/${job}`, world.otherAccountKey);
    expect(foreign.status).toBe(404);
    expect(errorCode(foreign)).toBe('not_found');
    world.clock.advance(7 * 86_400 - 60);
    expect((await client.get(`/v1/exports/${job}`, world.accountKey)).status).toBe(200);
    world.clock.advance(60);
    expect((await client.get(`/v1/exports/${job}`, world.accountKey)).status).toBe(404);
    expect((await download(done.body.downloadUrl)).status).toBe(403);
    // Starting a new export sweeps expired jobs and their files away.
    await finish((await start()).body.jobId);
    expect(await world.api.db.selectFrom('export_chunks').select('job_id').where('job_id', '=', job).execute()).toEqual([]);
  });
});

describe.each(MATRIX)('partial exports ($name)', (target) => {
  let world: World;
  let client: Client;
  serveWorld(target, { exports: { rowCap: 25 } }, (w, c) => ((world = w), (client = c)));

  it('are files cut at the row cap: rowCount is the rows written and partial is true', async () => {
    const { job, csv } = await runExport(client, world.accountKey, undefined, { idle: () => world.api.exportsIdle() });
    expect(job).toMatchObject({ status: 'complete', rowCount: 25, partial: true });
    expect(csv.rows).toHaveLength(25);
    const first25 = (await client.get('/v1/people?limit=25', world.accountKey)).body.data;
    expect(csv.rows.map(personFromCsv)).toEqual(first25);
  });
});
