import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createApi, ManualClock, type Api } from '../../adapters/node/index.ts';
import { clientFor } from '../support/client.ts';
import { parseCsv, personFromCsv } from '../support/csv.ts';
import { Gate } from '../support/gate.ts';
import { inProcess } from '../support/targets.ts';
import { createWorld, NOW } from '../support/world.ts';

const dir = mkdtempSync(join(tmpdir(), 'vi-export-restart-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A client of the API in-process. */
const clientOf = async (api: Api) => clientFor((await inProcess.start(api)).call);

describe('an export interrupted by a restart', () => {
  it('resumes where it stopped when the server starts again, writing every row exactly once', async () => {
    const database = join(dir, 'resume.sqlite');
    const gate = new Gate();
    const world = await createWorld({ database, exports: { batchRows: 7, chunkChars: 1, chunksPerCommit: 2, pace: gate.pace } });
    const started = await (await clientOf(world.api)).send('POST', '/v1/exports', world.accountKey);
    expect(started.status).toBe(202);
    const { jobId } = started.body;
    // Let the selection (staged, then moved into its run) and three batches of seven run, then
    // "crash": stop the process's runner mid-job. Two chunks (batches) a commit: the third batch's
    // chunk waits for a fourth, so the job stands after the second, and that is where it resumes.
    await gate.stepsRun(5);
    const stopping = world.api.close();
    gate.open();
    await stopping;
    const file = new BetterSqlite3(database, { readonly: true });
    expect(file.prepare('select status, member_count, next_seq from export_jobs where id = ?').get(jobId)).toEqual({ status: 'processing', member_count: 90, next_seq: 14 });
    file.close();

    // The next start picks the job up by itself.
    const restarted = await createApi({ database, clock: new ManualClock(NOW + 60_000) });
    await restarted.exportsIdle();
    const client = await clientOf(restarted);
    const done = (await client.get(`/v1/exports/${jobId}`, world.accountKey)).body;
    expect(done).toMatchObject({ status: 'complete', rowCount: 90, partial: false, completedAt: '2026-11-21T12:01:00+00:00' });
    const csv = await parseCsv(await (await client.download(done.downloadUrl)).text());
    const ids = csv.rows.map((r) => r.id);
    expect(new Set(ids).size).toBe(90);
    const listed = (await client.get('/v1/people?limit=100', world.accountKey)).body.data;
    expect(csv.rows.map(personFromCsv)).toEqual(listed);
    await restarted.close();
  });

  it('is marked failed with an error after three interrupted runs, so no job stays processing forever', async () => {
    const database = join(dir, 'abandon.sqlite');
    const world = await createWorld({ database, exports: { pace: () => new Promise(() => undefined) } });
    const { jobId } = (await (await clientOf(world.api)).send('POST', '/v1/exports', world.accountKey)).body;
    await world.api.db.updateTable('export_jobs').set({ attempts: 3 }).where('id', '=', jobId).execute();
    await world.api.db.destroy();
    const restarted = await createApi({ database, clock: new ManualClock(NOW) });
    await restarted.exportsIdle();
    const polled = (await (await clientOf(restarted)).get(`/v1/exports/${jobId}`, world.accountKey)).body;
    expect(polled).toEqual({ jobId, status: 'failed', createdAt: '2026-11-21T12:00:00+00:00', error: expect.stringContaining('interrupted 3 times') });
    await restarted.close();
  });

  it('is marked failed with an error, not left processing, when its run hits a fault', async () => {
    const database = join(dir, 'fault.sqlite');
    const world = await createWorld({ database, exports: { pace: () => new Promise(() => undefined) } });
    const { jobId } = (await (await clientOf(world.api)).send('POST', '/v1/exports', world.accountKey)).body;
    // Damage what the run reads so that it throws.
    await world.api.db.updateTable('export_jobs').set({ filters: '{not json' }).where('id', '=', jobId).execute();
    await world.api.db.destroy();
    const errors: unknown[] = [];
    const restarted = await createApi({ database, clock: new ManualClock(NOW), onError: (e) => errors.push(e) });
    await restarted.exportsIdle();
    const polled = (await (await clientOf(restarted)).get(`/v1/exports/${jobId}`, world.accountKey)).body;
    expect(polled).toMatchObject({ status: 'failed', error: expect.stringContaining('failed') });
    expect(JSON.stringify(polled)).not.toMatch(/SyntaxError|JSON|at /);
    expect(errors).toHaveLength(1);
    // A failed job frees its slot and keeps nothing of its file.
    expect(await restarted.db.selectFrom('export_chunks').select('seq').where('job_id', '=', jobId).execute()).toEqual([]);
    await restarted.close();
  });
});
