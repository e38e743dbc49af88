import { describe, expect, it } from 'vitest';
import { clientFor } from '../support/client.ts';
import { parseCsv } from '../support/csv.ts';
import { Gate } from '../support/gate.ts';
import { inProcess } from '../support/targets.ts';
import { POSTGRES_BACKENDS } from '../support/backends.ts';
import { createWorld, type World } from '../support/world.ts';

/**
 * On Postgres a job's members are one sorted run, and the database joins each chunk of the file
 * from their stored CSV pieces itself (core/store/export-chunk-writer.ts). A join drops a row it
 * cannot make: these tests damage members between two steps and expect the job to fail, never to
 * end complete with rows missing.
 */

/** 10 people written a full step (batchRows × chunksPerCommit), so the world's people take several. */
const STEPS = { batchRows: 5, chunksPerCommit: 2 };

/** Starts an export held at its steps; lets it run until `rows` rows are written; returns its id and how to read its job. */
async function heldAfter(world: World, gate: Gate, rows: number) {
  const client = clientFor((await inProcess.start(world.api)).call);
  const started = await client.send('POST', '/v1/exports', world.accountKey, JSON.stringify({ sortBy: 'lastSeen', sortOrder: 'desc' }), { 'content-type': 'application/json' });
  const jobId: string = started.body.jobId;
  const job = () => world.api.db.selectFrom('export_jobs').select(['status', 'next_seq', 'chunk_count']).where('id', '=', jobId).executeTakeFirstOrThrow();
  await gate.stepsUntil(async () => (await job()).next_seq >= rows);
  return { client, jobId, job };
}

describe.each(POSTGRES_BACKENDS)('an export written inside the database on $name', (backend) => {
  it('writes a chunk per step, each the rows of one step, and the whole file', async () => {
    const gate = new Gate();
    const world = await createWorld({ backend, exports: { ...STEPS, pace: gate.pace } });
    const { client, jobId, job } = await heldAfter(world, gate, 20);
    expect(await job()).toMatchObject({ status: 'processing', next_seq: 20, chunk_count: 2 });
    gate.open();
    await world.api.exportsIdle();
    const done = (await client.get(`/v1/exports/${jobId}`, world.accountKey)).body;
    expect(done).toMatchObject({ status: 'complete', rowCount: world.people.length });
    expect((await job()).chunk_count).toBe(Math.ceil(world.people.length / 10));
    const csv = await parseCsv(await (await client.download(done.downloadUrl)).text());
    expect(csv.rows.map((r) => r.id).sort()).toEqual(world.people.map((p) => p.id).sort());
    await world.close();
  });

  it.each([
    ['a member whose person has no row', { person_pk: 999_999 }],
    ['a member whose site the account does not have', { site_pk: 999_999 }],
  ])('fails on %s instead of leaving the row out', async (_, damage) => {
    const gate = new Gate();
    const world = await createWorld({ backend, exports: { ...STEPS, pace: gate.pace } });
    const { client, jobId, job } = await heldAfter(world, gate, 10);
    // The file's last row (lastSeen descending): its chunk holds other rows, which a join would write without it.
    const last = await world.api.db.selectFrom('export_members').select('person_id').where('job_id', '=', jobId).orderBy('k1').orderBy('k2').orderBy('person_id').limit(1).executeTakeFirstOrThrow();
    await world.api.db.updateTable('export_members').set(damage).where('job_id', '=', jobId).where('person_id', '=', last.person_id).execute();
    gate.open();
    await world.api.exportsIdle();
    expect((await client.get(`/v1/exports/${jobId}`, world.accountKey)).body).toMatchObject({ status: 'failed' });
    // The rows before that chunk were written; none of it.
    const total = world.people.length;
    expect(await job()).toMatchObject({ next_seq: total - (total % 10 || 10) });
    await world.close();
  });
});
