import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApi, ManualClock, type Api, type PersonInput } from '../../adapters/node/index.ts';
import { clientFor } from '../support/client.ts';
import { parseCsv } from '../support/csv.ts';
import { Gate } from '../support/gate.ts';
import { inProcess } from '../support/targets.ts';
import { BACKENDS } from '../support/backends.ts';
import { createWorld, NOW, type World } from '../support/world.ts';

/**
 * Export selection runs in bounded steps (collection over people pks, then writing in file
 * order), each its own transaction, with `pace` between them: these tests hold a job between
 * two steps and look at what the rest of the API and a restart see there.
 */
const dir = mkdtempSync(join(tmpdir(), 'vi-export-steps-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * 10 people pks per collection step and 30 per sorted run: the world's 91 people make four runs,
 * each staged in up to three steps and then moved into place 10 members a step.
 */
const STEPS = { collectPks: 10, runPks: 30, batchRows: 7, chunkChars: 1 };

const clientOf = async (api: Api) => clientFor((await inProcess.start(api)).call);

/** Whether the job's collection has recorded its first run. */
const firstRunIn = (api: Api, jobId: string) => async () => (await collection(api, jobId)).afterPk > 0;

/** How far a job's collection got: members collected and whether it has finished. */
async function collection(api: Api, jobId: string) {
  const job = await api.db.selectFrom('export_jobs').select(['member_count', 'collect_after_pk']).where('id', '=', jobId).executeTakeFirstOrThrow();
  const { n } = await api.db.selectFrom('export_members').select((eb) => eb.fn.countAll<number>().as('n')).where('job_id', '=', jobId).executeTakeFirstOrThrow();
  return { members: n, finished: job.member_count !== null, afterPk: job.collect_after_pk };
}

/** Starts an export and returns its job id. */
async function start(world: Pick<World, 'api' | 'accountKey'>, filters: Record<string, unknown>): Promise<string> {
  const started = await (await clientOf(world.api)).send('POST', '/v1/exports', world.accountKey, JSON.stringify(filters), { 'content-type': 'application/json' });
  expect(started.status).toBe(202);
  return started.body.jobId;
}

/** The finished job's file, as text. */
async function fileOf(api: Api, key: string, jobId: string): Promise<{ job: any; text: string }> {
  const client = await clientOf(api);
  const job = (await client.get(`/v1/exports/${jobId}`, key)).body;
  expect(job.status).toBe('complete');
  return { job, text: await (await client.download(job.downloadUrl)).text() };
}

/** The file of the same export run without interruption on a fresh copy of the world. */
async function uninterrupted(filters: Record<string, unknown>): Promise<{ job: any; text: string }> {
  const world = await createWorld({ exports: STEPS });
  const jobId = await start(world, filters);
  await world.api.exportsIdle();
  const file = await fileOf(world.api, world.accountKey, jobId);
  await world.api.close();
  return file;
}

describe('an export collects its selection in steps', () => {
  it('answers a read request between two steps of one export’s selection', async () => {
    const gate = new Gate();
    const world = await createWorld({ exports: { ...STEPS, pace: gate.pace } });
    const jobId = await start(world, {});
    await gate.stepsUntil(firstRunIn(world.api, jobId));
    const midway = await collection(world.api, jobId);
    expect(midway).toMatchObject({ finished: false, afterPk: 30 });
    expect(midway.members).toBeGreaterThan(0);
    expect(midway.members).toBeLessThan(90);
    // The job waits between two steps of its selection, and a request is answered meanwhile.
    const people = await (await clientOf(world.api)).get('/v1/people?limit=5', world.accountKey);
    expect(people.status).toBe(200);
    expect(people.body.data).toHaveLength(5);
    expect(await collection(world.api, jobId)).toEqual(midway);
    gate.open();
    await world.api.exportsIdle();
    const { job, text } = await fileOf(world.api, world.accountKey, jobId);
    expect(job).toMatchObject({ rowCount: 90, partial: false });
    expect((await parseCsv(text)).rows.map((r) => r.id)).toEqual((await (await clientOf(world.api)).get('/v1/people?limit=100', world.accountKey)).body.data.map((p: { id: string }) => p.id));
    await world.api.close();
  });

  it.each([
    ['while staging a run of its collection', 'staging'],
    ['during its writing', 'writing'],
  ] as const)('resumes a job interrupted %s to the identical file, its timeframe measured from when it started', async (_when, stage) => {
    // Sorted by name ascending: null last names first, ties broken by id. The 24-hour window
    // ends exactly on per_024's lastSeen, so a resumed run that measured it from its own start
    // (a minute later) would lose that person.
    const filters = { sortBy: 'name', sortOrder: 'asc', timeframe: '24h' };
    const expected = await uninterrupted(filters);
    expect(expected.job.rowCount).toBe(25);

    const database = join(dir, `resume-${stage}.sqlite`);
    const gate = new Gate();
    const world = await createWorld({ database, exports: { ...STEPS, pace: gate.pace } });
    const jobId = await start(world, filters);
    if (stage === 'staging') await gate.stepsUntil(firstRunIn(world.api, jobId));
    else await gate.stepsUntil(async () => (await collection(world.api, jobId)).finished);
    // Two steps more: the second run half staged, or two batches written.
    await gate.stepsRun(2);
    const stopping = world.api.close();
    gate.open();
    await stopping;

    const restarted = await createApi({ database, clock: new ManualClock(NOW + 60_000), exports: STEPS });
    const state = await collection(restarted, jobId);
    if (stage === 'staging') expect(state).toMatchObject({ finished: false, afterPk: 30 });
    else expect(state.finished).toBe(true);
    await restarted.exportsIdle();
    const resumed = await fileOf(restarted, world.accountKey, jobId);
    expect(resumed.job).toMatchObject({ rowCount: 25, partial: false });
    expect(resumed.text).toBe(expected.text);
    // Nothing of the selection is kept once the file is complete.
    expect(await collection(restarted, jobId)).toMatchObject({ members: 0 });
    await restarted.close();
  });

  it('lists a person reloaded during the collection exactly once, whether or not the walk had passed them', async () => {
    const gate = new Gate();
    const world = await createWorld({ exports: { ...STEPS, pace: gate.pace } });
    const jobId = await start(world, {});
    await gate.stepsUntil(firstRunIn(world.api, jobId));
    expect(await collection(world.api, jobId)).toMatchObject({ finished: false, afterPk: 30 });
    // per_005 was collected already; per_050 not yet. Both are reloaded as seen most recently.
    const seenNow = (p: PersonInput, minutes: number): PersonInput => ({
      ...p,
      visits: p.visits.map((v, i) => (i === 0 ? { ...v, lastSeen: new Date(NOW - minutes * 60_000).toISOString() } : v)),
    });
    const reloaded = [seenNow(world.people[5]!, 20), seenNow(world.people[50]!, 30)];
    await world.api.admin.loadPeople('acc_a', reloaded);
    gate.open();
    await world.api.exportsIdle();
    const { job, text } = await fileOf(world.api, world.accountKey, jobId);
    const ids = (await parseCsv(text)).rows.map((r) => r.id);
    expect(job.rowCount).toBe(90);
    expect(ids).toHaveLength(90);
    expect(new Set(ids).size).toBe(90);
    // per_050 was collected after its reload, so it sorts by its new lastSeen (second, after
    // per_000 seen at NOW); per_005 keeps the place it had when collected.
    expect(ids.slice(0, 3)).toEqual(['per_000', 'per_050', 'per_001']);
    expect(ids.indexOf('per_005')).toBe(6);
    await world.api.close();
  });

  it('resumes a job stopped between two moves of a run without listing anyone twice or losing anyone', async () => {
    const expected = await uninterrupted({});
    const database = join(dir, 'resume-moves.sqlite');
    const gate = new Gate();
    const world = await createWorld({ database, exports: { ...STEPS, pace: gate.pace } });
    const jobId = await start(world, {});
    // The first run's 30 people are staged; one move of 10 has gone into the run, unrecorded.
    await gate.stepsUntil(async () => (await collection(world.api, jobId)).members > 0);
    expect(await collection(world.api, jobId)).toEqual({ members: 10, finished: false, afterPk: 0 });
    const stopping = world.api.close();
    gate.open();
    await stopping;

    const restarted = await createApi({ database, clock: new ManualClock(NOW), exports: STEPS });
    await restarted.exportsIdle();
    const resumed = await fileOf(restarted, world.accountKey, jobId);
    expect(resumed.job).toMatchObject({ rowCount: 90, partial: false });
    expect(resumed.text).toBe(expected.text);
    await restarted.close();
  });
});

describe('an export whose pace asks for a share of each step', () => {
  it('takes steps of that share, down to dropping its members a bounded slice at a time, and writes the same file', async () => {
    const expected = await uninterrupted({});
    const gate = new Gate();
    // A hundredth: stage 10 pks, move 10 members, write 7 rows, drop 16 members a step (of the
    // lowest run: the first holds 62, the second 28).
    const world = await createWorld({ exports: { collectPks: 1000, runPks: 62, batchRows: 700, chunkChars: 1, pace: () => gate.pace().then(() => 0.01) } });
    const jobId = await start(world, {});
    await gate.stepsUntil(async () => (await collection(world.api, jobId)).members > 0);
    expect((await collection(world.api, jobId)).members).toBe(10);
    const jobRow = () => world.api.db.selectFrom('export_jobs').select(['status', 'next_seq']).where('id', '=', jobId).executeTakeFirstOrThrow();
    await gate.stepsUntil(async () => (await jobRow()).next_seq > 0);
    expect(await jobRow()).toEqual({ status: 'processing', next_seq: 7 });
    // Complete, and its first cleanup step has dropped 16 of its 90 members.
    await gate.stepsUntil(async () => (await jobRow()).status === 'complete');
    expect((await collection(world.api, jobId)).members).toBe(74);
    await gate.stepsRun(1);
    expect((await collection(world.api, jobId)).members).toBe(58);
    // Three steps in all leave 14 of the first run; the fourth drops those 14 and none of the second.
    await gate.stepsRun(1);
    expect((await collection(world.api, jobId)).members).toBe(42);
    await gate.stepsRun(1);
    expect((await collection(world.api, jobId)).members).toBe(28);
    gate.open();
    await world.api.exportsIdle();
    expect((await collection(world.api, jobId)).members).toBe(0);
    expect((await fileOf(world.api, world.accountKey, jobId)).text).toBe(expected.text);
    await world.api.close();
  });
});

describe('what a finished export leaves behind', () => {
  it('is dropped: the members past the row cap once the file is complete, and any found when the API starts again', async () => {
    const database = join(dir, 'leftovers.sqlite');
    const world = await createWorld({ database, exports: { ...STEPS, rowCap: 25 } });
    const jobId = await start(world, {});
    await world.api.exportsIdle();
    expect((await fileOf(world.api, world.accountKey, jobId)).job).toMatchObject({ rowCount: 25, partial: true });
    expect(await collection(world.api, jobId)).toMatchObject({ members: 0 });
    // As if the process had stopped before its cleanup ended.
    await world.api.db.insertInto('export_members').values({ job_id: jobId, run: 0, k1: 1, k2: 0, person_id: 'per_000', person_pk: 1, site_pk: 1 }).execute();
    await world.api.close();
    const restarted = await createApi({ database, clock: new ManualClock(NOW) });
    await restarted.exportsIdle();
    expect(await collection(restarted, jobId)).toMatchObject({ members: 0 });
    await restarted.close();
  });
});

describe.each(BACKENDS)('an export that fails halfway on $name', (backend) => {
  it('leaves nothing behind, its chunks and members dropped a slice at a time, and another job’s file whole', async () => {
    const gate = new Gate();
    gate.open();
    // A hundredth of each step: one row written a step, each in a chunk of its own; the cleanup
    // drops 16 members and one chunk a step, so it takes dozens of steps, across runs on SQLite.
    const world = await createWorld({ backend, exports: { ...STEPS, pace: () => gate.pace().then(() => 0.01) } });
    const kept = await start(world, {});
    await world.api.exportsIdle();
    const file = await fileOf(world.api, world.accountKey, kept);
    gate.close();
    const failing = await start(world, {});
    const job = () => world.api.db.selectFrom('export_jobs').select(['status', 'next_seq', 'chunk_count', 'lease_owner']).where('id', '=', failing).executeTakeFirstOrThrow();
    // Postgres writes the whole file in one step (core/store/export-whole-file.ts): held once claimed, before it.
    const wholeFile = backend.name !== 'sqlite';
    await gate.stepsUntil(async () => (wholeFile ? (await job()).lease_owner !== null : (await job()).next_seq >= 30));
    // The chunk the run writes next is already there: its write fails, and so does the run.
    const { chunk_count } = await job();
    await world.api.db.insertInto('export_chunks').values({ job_id: failing, seq: chunk_count, data: 'in the way' }).execute();
    gate.open();
    await world.api.exportsIdle();
    expect(await job()).toMatchObject({ status: 'failed' });
    const left = async (table: 'export_members' | 'export_chunks', jobId: string) =>
      (await world.api.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).where('job_id', '=', jobId).executeTakeFirstOrThrow()).n;
    expect([await left('export_members', failing), await left('export_chunks', failing)]).toEqual([0, 0]);
    expect(await left('export_chunks', kept)).toBeGreaterThan(wholeFile ? 3 : 30);
    expect((await fileOf(world.api, world.accountKey, kept)).text).toBe(file.text);
    await world.close();
  });
});

describe.each(BACKENDS)('the file order on $name, walked in steps across ties and nulls', (backend) => {
  const SORTS = ['lastSeen', 'firstSeen', 'visitCount', 'name', 'company', 'email'] as const;
  /** The documented order: the field (text lower-cased), nulls first ascending and last descending, then id, all in one direction. */
  const keyOf: Record<(typeof SORTS)[number], (p: PersonInput) => (string | number | null)[]> = {
    lastSeen: (p) => [Math.max(...p.visits.map((v) => Date.parse(String(v.lastSeen))))],
    firstSeen: (p) => [Math.min(...p.visits.map((v) => Date.parse(String(v.firstSeen))))],
    visitCount: (p) => [p.visits.reduce((n, v) => n + v.visitCount, 0)],
    name: (p) => [p.lastName?.toLowerCase() ?? null, p.firstName?.toLowerCase() ?? null],
    company: (p) => [p.company?.toLowerCase() ?? null],
    email: (p) => [p.email?.toLowerCase() ?? null],
  };
  const compare = (a: (string | number | null)[], b: (string | number | null)[]) => {
    for (let i = 0; i < a.length; i++) {
      const [x, y] = [a[i]!, b[i]!];
      if (x === y) continue;
      if (x === null) return -1;
      if (y === null) return 1;
      return x < y ? -1 : 1;
    }
    return 0;
  };

  it.each(SORTS.flatMap((s) => [[s, 'asc'], [s, 'desc']] as const))('sortBy %s %s matches the documented order', async (sortBy, sortOrder) => {
    const world = await createWorld({ exports: { collectPks: 13, runPks: 26, batchRows: 4 }, backend });
    const jobId = await start(world, { sortBy, sortOrder });
    await world.api.exportsIdle();
    const { text } = await fileOf(world.api, world.accountKey, jobId);
    const sign = sortOrder === 'asc' ? 1 : -1;
    const expected = [...world.people].sort((a, b) => sign * (compare(keyOf[sortBy](a), keyOf[sortBy](b)) || (a.id < b.id ? -1 : 1))).map((p) => p.id);
    expect((await parseCsv(text)).rows.map((r) => r.id)).toEqual(expected);
    await world.close();
  });
});
