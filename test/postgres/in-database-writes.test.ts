import { describe, expect, it } from 'vitest';
import { clientFor } from '../support/client.ts';
import { parseCsv, personFromCsv } from '../support/csv.ts';
import { Gate } from '../support/gate.ts';
import { inProcess } from '../support/targets.ts';
import { POSTGRES_BACKENDS } from '../support/backends.ts';
import { createWorld, type World } from '../support/world.ts';

/**
 * On Postgres the database writes a job's whole file in one statement, in one transaction
 * (core/store/export-whole-file.ts): nothing is collected, nothing is written halfway, and a line
 * it cannot form fails the job instead of leaving the row out.
 */

/** 10 people a chunk (batchRows × chunksPerCommit). */
const STEPS = { batchRows: 5, chunksPerCommit: 2 };

/** Starts an export held at its first step (before a runner claims it); its id, and how to read its job and what it left. */
async function heldAtStart(world: World, gate: Gate) {
  const client = clientFor((await inProcess.start(world.api)).call);
  const started = await client.send('POST', '/v1/exports', world.accountKey, JSON.stringify({ sortBy: 'lastSeen', sortOrder: 'desc' }), { 'content-type': 'application/json' });
  const jobId: string = started.body.jobId;
  const job = () => world.api.db.selectFrom('export_jobs').select(['status', 'lease_owner', 'member_count', 'next_seq', 'chunk_count', 'attempts']).where('id', '=', jobId).executeTakeFirstOrThrow();
  const count = async (table: 'export_chunks' | 'export_members') =>
    Number((await world.api.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where('job_id', '=', jobId).executeTakeFirstOrThrow()).n);
  await gate.atStep();
  return { client, jobId, job, count };
}

/** Starts an export and holds it once a runner has claimed it, before it writes. */
async function heldWhenClaimed(world: World, gate: Gate) {
  const held = await heldAtStart(world, gate);
  await gate.stepsUntil(async () => (await held.job()).lease_owner !== null);
  return held;
}

/** The people as the API lists them, first page of 100 (the world has 90). */
async function listed(world: World) {
  const client = clientFor((await inProcess.start(world.api)).call);
  return (await client.get('/v1/people?limit=100', world.accountKey)).body.data;
}

describe.each(POSTGRES_BACKENDS)('an export written inside the database on $name', (backend) => {
  it('writes nothing until its one step, then the whole file in chunks of a full step, header first, and collects no members', async () => {
    const gate = new Gate();
    const world = await createWorld({ backend, exports: { ...STEPS, pace: gate.pace } });
    const { client, jobId, job, count } = await heldWhenClaimed(world, gate);
    expect(await job()).toMatchObject({ status: 'processing', member_count: null, chunk_count: 0 });
    expect(await count('export_chunks')).toBe(0);
    // One step writes it all, and the job is complete with no step after it.
    gate.step();
    await world.api.exportsIdle();
    expect(gate.waiting).toBe(0);
    expect(await job()).toMatchObject({ status: 'complete', member_count: 90, next_seq: 90, chunk_count: 9 });
    expect(await count('export_members')).toBe(0);
    const done = (await client.get(`/v1/exports/${jobId}`, world.accountKey)).body;
    expect(done).toMatchObject({ status: 'complete', rowCount: 90, partial: false });
    const chunks = await world.api.db.selectFrom('export_chunks').select(['seq', 'data']).where('job_id', '=', jobId).orderBy('seq').execute();
    expect(chunks.map((c) => c.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(chunks.map((c) => c.data.split('\r\n').length - 1)).toEqual([11, 10, 10, 10, 10, 10, 10, 10, 10]);
    const csv = await parseCsv(await (await client.download(done.downloadUrl)).text());
    expect(csv.rows.map(personFromCsv)).toEqual(await listed(world));
    await world.close();
  });

  it('fails, writing nothing, on a person whose line cannot be formed instead of leaving the row out', async () => {
    const gate = new Gate();
    const world = await createWorld({ backend, exports: { ...STEPS, pace: gate.pace } });
    const { client, jobId, count } = await heldWhenClaimed(world, gate);
    // Damage: a person without the stored CSV cells a line is joined from.
    await world.api.db.updateTable('people').set({ csv_head: null }).where('id', '=', world.people[40]!.id).execute();
    gate.open();
    await world.api.exportsIdle();
    expect((await client.get(`/v1/exports/${jobId}`, world.accountKey)).body).toMatchObject({ status: 'failed' });
    expect(await count('export_chunks')).toBe(0);
    await world.close();
  });

  it('writes again from the start a job a stepwise run left halfway (before this version), with the same file', async () => {
    const gate = new Gate();
    const world = await createWorld({ backend, exports: { ...STEPS, pace: gate.pace } });
    const { client, jobId, job, count } = await heldAtStart(world, gate);
    // What a stepwise run left when it stopped: a selection of 90, two chunks of it written.
    await world.api.db.updateTable('export_jobs').set({ member_count: 90, partial: 0, next_seq: 20, chunk_count: 2, collect_until_pk: 1000, collect_after_pk: 1000, collected: 90 }).where('id', '=', jobId).execute();
    await world.api.db.insertInto('export_chunks').values([0, 1].map((seq) => ({ job_id: jobId, seq, data: `left by the stepwise run ${seq}\r\n` }))).execute();
    gate.open();
    await world.api.exportsIdle();
    expect(await job()).toMatchObject({ status: 'complete', member_count: 90, next_seq: 90, chunk_count: 9 });
    const done = (await client.get(`/v1/exports/${jobId}`, world.accountKey)).body;
    const text = await (await client.download(done.downloadUrl)).text();
    expect(text).not.toContain('left by the stepwise run');
    expect((await parseCsv(text)).rows.map(personFromCsv)).toEqual(await listed(world));
    expect(await count('export_chunks')).toBe(9);
    await world.close();
  });
});
