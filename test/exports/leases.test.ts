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

/** The finished job's file through `api`: its poll answer, checked to hold the 90 people the list shows, in its order. */
async function wholeFileOf(api: Api, key: string, jobId: string) {
  const client = clientFor((await inProcess.start(api)).call);
  const job = (await client.get(`/v1/exports/${jobId}`, key)).body;
  const csv = await parseCsv(await (await client.download(job.downloadUrl)).text());
  const listed = (await client.get('/v1/people?limit=100', key)).body.data;
  expect(csv.rows).toHaveLength(90);
  expect(csv.rows.map(personFromCsv)).toEqual(listed.slice(0, 90));
  return job;
}

type Database = (typeof databases)[number];

/** A world whose API claimed a new export job and hangs before its next step (after `first`, if given). */
async function heldJob(name: string, database: Database, first?: (world: World) => void) {
  const path = database.file ? join(dir, `${name}-${Date.now()}.sqlite`) : undefined;
  const gate = new Gate();
  const world = await createWorld({ backend: database.backend, database: path, exports: { ...STEPS, pace: gate.pace, pollIntervalMs: 0 } });
  const client = clientFor((await inProcess.start(world.api)).call);
  first?.(world);
  const { jobId } = (await client.send('POST', '/v1/exports', world.accountKey)).body;
  await gate.stepsUntil(async () => database.held(await jobRow(world.api, jobId)));
  return { path, gate, world, jobId, before: await jobRow(world.api, jobId) };
}

/** The lease runs out, `other` finishes the job, then the held API wakes up to find its lease gone. */
async function takeOver(world: World, other: Api, gate: Gate, jobId: string): Promise<void> {
  world.leaseClock.advance(31);
  await until(async () => (await jobRow(world.api, jobId)).status === 'complete');
  await other.exportsIdle();
  gate.open();
  await world.api.exportsIdle();
}

describe.each(databases)('export leases on $name', (database) => {
  it('leave a held job to its holder until the lease runs out, then another API takes it over and finishes the file exactly once', async () => {
    const { path, gate, world, jobId, before } = await heldJob('takeover', database);
    expect(before).toMatchObject({ status: 'processing', attempts: 1 });
    expect(before.lease_owner).not.toBeNull();
    const other = await secondApi(world, path, { pollIntervalMs: 10 });
    try {
      // Within the lease, the second API leaves the job alone, however often it looks and however far the API's clock moves.
      world.clock.advance(86_400);
      await new Promise((r) => setTimeout(r, 50));
      expect(await jobRow(world.api, jobId)).toEqual(before);

      await takeOver(world, other, gate, jobId);
      // The held API recorded nothing after it woke.
      expect(await jobRow(world.api, jobId)).toMatchObject({ status: 'complete', lease_owner: null, row_count: 90, attempts: 2 });
      expect(await wholeFileOf(other, world.accountKey, jobId)).toMatchObject({ status: 'complete', rowCount: 90, partial: false });
    } finally {
      gate.open();
      await other.close();
      await world.close();
    }
  });

  it("hold on their own clock: a job claimed while its API's clock was moved ahead is taken over by an API whose clock was not, once the lease runs out", async () => {
    // An admin moved this API's clock ahead; the job is created and claimed on it.
    const { path, gate, world, jobId, before } = await heldJob('moved', database, (w) => w.clock.advance(80 * 60));
    // As a process restarted after it would: its clock where it was before any move.
    const other = await secondApi(world, path, { pollIntervalMs: 10 }, new ManualClock(NOW));
    try {
      await new Promise((r) => setTimeout(r, 50));
      expect(await jobRow(world.api, jobId)).toEqual(before);
      await takeOver(world, other, gate, jobId);
      expect(await jobRow(world.api, jobId)).toMatchObject({ status: 'complete', lease_owner: null, row_count: 90, attempts: 2 });
      // What the client sees stays on the clock the job was created by.
      expect(await wholeFileOf(other, world.accountKey, jobId)).toMatchObject({ status: 'complete', rowCount: 90, createdAt: new Date(NOW + 80 * 60_000).toISOString().replace('.000Z', '+00:00') });
    } finally {
      gate.open();
      await other.close();
      await world.close();
    }
  });

  it('are given back when an API stops, so another API resumes the job at once', async () => {
    const { path, gate, world, jobId } = await heldJob('handover', database);
    const stopping = world.api.close();
    gate.open();
    await stopping;
    // (An API that opened its SQLite file closes it on close(): read the file directly.)
    const row = path ? new BetterSqlite3(path, { readonly: true }) : undefined;
    expect(row ? row.prepare('select status, lease_owner from export_jobs where id = ?').get(jobId) : await jobRow(world.api, jobId)).toMatchObject({ status: 'processing', lease_owner: null });
    row?.close();

    // No time passes: the job is free, and the next API to look takes it.
    const other = await secondApi(world, path, { pollIntervalMs: 0 });
    try {
      await other.exportsIdle();
      expect(await wholeFileOf(other, world.accountKey, jobId)).toMatchObject({ status: 'complete', rowCount: 90 });
    } finally {
      await other.close();
      await world.close();
    }
  });
});
