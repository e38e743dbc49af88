import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createApi, ManualClock, type Api, type Clock } from '../../adapters/node/index.ts';
import { POSTGRES_BACKENDS, type Backend } from '../support/backends.ts';
import { clientFor } from '../support/client.ts';
import { parseCsv, personFromCsv } from '../support/csv.ts';
import { Gate } from '../support/gate.ts';
import { inProcess } from '../support/targets.ts';
import { createWorld, NOW, type World } from '../support/world.ts';

/**
 * Export jobs are claimed with leases, so two APIs on one database (as two processes would be)
 * never run one job at once, and one takes over what the other left: here both live in this
 * process, one of them held between two steps as a process that hangs or died would be. Leases run
 * on a lease clock of their own (the system's, outside tests): moving an API's clock moves none.
 */
const dir = mkdtempSync(join(tmpdir(), 'vi-export-leases-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Small steps, a chunk per step: the job is still early in its file when it is held. */
const STEPS = { collectPks: 10, batchRows: 7, chunkChars: 1, leaseSeconds: 30 };

type JobRow = Awaited<ReturnType<typeof jobRow>>;

/**
 * Where each backend's job is held: on SQLite two chunks into its file; on Postgres, which writes
 * the whole file in one step (core/store/export-whole-file.ts), claimed and before that step.
 */
const databases: { name: string; backend?: Backend; file?: boolean; held: (job: JobRow) => boolean }[] = [
  { name: 'a SQLite file', file: true, held: (job) => job.chunk_count >= 2 },
  ...POSTGRES_BACKENDS.map((backend) => ({ name: `one Postgres schema (${backend.name})`, backend, held: (job: JobRow) => job.lease_owner !== null })),
];

/** A second API on the world's database, with the world's lease clock and (unless given another) its clock. */
async function secondApi(world: World, file: string | undefined, exports: Record<string, unknown>, clock: Clock = world.clock): Promise<Api> {
  return createApi({ database: file ?? world.api.db, clock, leaseClock: world.leaseClock, exports: { ...STEPS, ...exports }, onError: () => undefined });
}

/** The job row as the runners left it. */
const jobRow = (api: Api, jobId: string) =>
  api.db.selectFrom('export_jobs').select(['status', 'lease_owner', 'next_seq', 'chunk_count', 'row_count', 'attempts']).where('id', '=', jobId).executeTakeFirstOrThrow();

/** Waits (in real time) until `check` holds, or fails after two seconds. */
async function until(check: () => Promise<boolean>): Promise<void> {
  for (let waited = 0; !(await check()); waited += 5) {
    if (waited > 2000) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** The finished job's file through `api`: its poll answer and its rows. */
async function fileOf(api: Api, key: string, jobId: string) {
  const client = clientFor((await inProcess.start(api)).call);
  const job = (await client.get(`/v1/exports/${jobId}`, key)).body;
  const csv = await parseCsv(await (await client.download(job.downloadUrl)).text());
  const listed = (await client.get('/v1/people?limit=100', key)).body.data;
  return { job, csv, listed };
}

describe.each(databases)('export leases on $name', ({ backend, file, held: isHeld }) => {
  it('leave a held job to its holder until the lease runs out, then another API takes it over and finishes the file exactly once', async () => {
    const path = file ? join(dir, `takeover-${Date.now()}.sqlite`) : undefined;
    const held = new Gate();
    const world = await createWorld({ backend, database: path, exports: { ...STEPS, pace: held.pace, pollIntervalMs: 0 } });
    const client = clientFor((await inProcess.start(world.api)).call);
    const { jobId } = (await client.send('POST', '/v1/exports', world.accountKey)).body;
    // The first API claims the job (on SQLite, writes two chunks too), then hangs before its next step.
    await held.stepsUntil(async () => isHeld(await jobRow(world.api, jobId)));
    const before = await jobRow(world.api, jobId);
    expect(before).toMatchObject({ status: 'processing', attempts: 1 });
    expect(before.lease_owner).not.toBeNull();

    const other = await secondApi(world, path, { pollIntervalMs: 10 });
    try {
      // Within the lease, the second API leaves the job alone, however often it looks and however far the API's clock moves.
      world.clock.advance(86_400);
      await new Promise((r) => setTimeout(r, 50));
      expect(await jobRow(world.api, jobId)).toEqual(before);

      world.leaseClock.advance(31);
      await until(async () => (await jobRow(world.api, jobId)).status === 'complete');
      await other.exportsIdle();
      // The first API wakes up: its lease is gone, so it records nothing more.
      held.open();
      await world.api.exportsIdle();

      const done = await jobRow(world.api, jobId);
      expect(done).toMatchObject({ status: 'complete', lease_owner: null, row_count: 90, attempts: 2 });
      const { job, csv, listed } = await fileOf(other, world.accountKey, jobId);
      expect(job).toMatchObject({ status: 'complete', rowCount: 90, partial: false });
      expect(csv.rows.map(personFromCsv)).toEqual(listed.slice(0, 90));
      expect(csv.rows).toHaveLength(90);
    } finally {
      held.open();
      await other.close();
      await world.close();
    }
  });

  it("hold on their own clock: a job claimed while its API's clock was moved ahead is taken over by an API whose clock was not, once the lease runs out", async () => {
    const path = file ? join(dir, `moved-${Date.now()}.sqlite`) : undefined;
    const held = new Gate();
    const world = await createWorld({ backend, database: path, exports: { ...STEPS, pace: held.pace, pollIntervalMs: 0 } });
    const client = clientFor((await inProcess.start(world.api)).call);
    // An admin moved this API's clock ahead; the job is created and claimed on it.
    world.clock.advance(80 * 60);
    const { jobId } = (await client.send('POST', '/v1/exports', world.accountKey)).body;
    await held.stepsUntil(async () => isHeld(await jobRow(world.api, jobId)));
    const before = await jobRow(world.api, jobId);

    // As a process restarted after it would: its clock where it was before any move.
    const other = await secondApi(world, path, { pollIntervalMs: 10 }, new ManualClock(NOW));
    try {
      await new Promise((r) => setTimeout(r, 50));
      expect(await jobRow(world.api, jobId)).toEqual(before);
      world.leaseClock.advance(31);
      await until(async () => (await jobRow(world.api, jobId)).status === 'complete');
      await other.exportsIdle();
      held.open();
      await world.api.exportsIdle();

      expect(await jobRow(world.api, jobId)).toMatchObject({ status: 'complete', lease_owner: null, row_count: 90, attempts: 2 });
      const { job, csv, listed } = await fileOf(other, world.accountKey, jobId);
      // What the client sees stays on the clock the job was created by.
      expect(job).toMatchObject({ status: 'complete', rowCount: 90, createdAt: new Date(NOW + 80 * 60_000).toISOString().replace('.000Z', '+00:00') });
      expect(csv.rows.map(personFromCsv)).toEqual(listed.slice(0, 90));
    } finally {
      held.open();
      await other.close();
      await world.close();
    }
  });

  it('are given back when an API stops, so another API resumes the job at once', async () => {
    const path = file ? join(dir, `handover-${Date.now()}.sqlite`) : undefined;
    const held = new Gate();
    const world = await createWorld({ backend, database: path, exports: { ...STEPS, pace: held.pace, pollIntervalMs: 0 } });
    const client = clientFor((await inProcess.start(world.api)).call);
    const { jobId } = (await client.send('POST', '/v1/exports', world.accountKey)).body;
    await held.stepsUntil(async () => isHeld(await jobRow(world.api, jobId)));
    const stopping = world.api.close();
    held.open();
    await stopping;
    // (An API that opened its SQLite file closes it on close(): read the file directly.)
    const row = path ? new BetterSqlite3(path, { readonly: true }) : undefined;
    expect(row ? row.prepare('select status, lease_owner from export_jobs where id = ?').get(jobId) : await jobRow(world.api, jobId)).toMatchObject({ status: 'processing', lease_owner: null });
    row?.close();

    // No time passes: the job is free, and the next API to look takes it.
    const other = await secondApi(world, path, { pollIntervalMs: 0 });
    try {
      await other.exportsIdle();
      const { job, csv, listed } = await fileOf(other, world.accountKey, jobId);
      expect(job).toMatchObject({ status: 'complete', rowCount: 90 });
      expect(csv.rows.map(personFromCsv)).toEqual(listed.slice(0, 90));
    } finally {
      await other.close();
      await world.close();
    }
  });
});
