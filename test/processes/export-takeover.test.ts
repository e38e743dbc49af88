import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCsv, personFromCsv } from '../support/csv.ts';
import { startServe, startServers, stopAll, type ServeProcess } from '../support/processes.ts';
import { SHARED_DATABASES, sqliteFile } from '../support/shared-database.ts';
import { until } from '../support/polling.ts';

/**
 * An export job belongs to no process: three API processes (the built bin's `serve`) share one
 * database, the one running a job is killed with SIGKILL halfway through its file, and another
 * takes the job over once its lease has run out, finishing the file as if it had run once. Leases
 * hold on the system clock: a process restarted after one whose admin clock was moved ahead takes
 * its job over all the same. On a SQLite file always; on a PostgreSQL server when
 * VI_TEST_POSTGRES_URL names one.
 */

const dir = mkdtempSync(join(tmpdir(), 'vi-export-takeover-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PEOPLE = 1000;
/**
 * Slow enough steps that the kill lands mid-file, a lease short enough that the takeover comes
 * soon. PostgreSQL writes the whole file in one step (core/store/export-whole-file.ts): there the
 * kill lands once the job is claimed, during the wait before that step.
 */
const argsFor = (wholeFile: boolean) => ['--people', String(PEOPLE), '--export-step-delay', wholeFile ? '1500' : '30', '--export-lease', '2', '--rate-limit', '100000'];

/** The job's row, read beside the processes. */
type JobRow = { status: string; next_seq: number; member_count: number | null; attempts: number; lease_owner: string | null };

/** A GET with the account key, its JSON body. */
async function get(server: ServeProcess, path: string): Promise<any> {
  const res = await fetch(`${server.url}${path}`, { headers: { 'x-api-key': server.keys.accountKey } });
  expect(res.status, path).toBe(200);
  return res.json();
}

/** Every person the API lists, in order, walking the cursor. */
async function everyone(server: ServeProcess): Promise<unknown[]> {
  const people: unknown[] = [];
  for (let cursor: string | undefined; ; ) {
    const page = await get(server, `/v1/people?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    people.push(...page.data);
    cursor = page.pagination.nextCursor;
    if (!cursor) return people;
  }
}

/** Whether the job is far enough along to kill its process: part of the file written (or, writing it whole, claimed). */
const killNow = (wholeFile: boolean) => (job: JobRow | undefined) => (wholeFile ? job?.lease_owner != null : job !== undefined && job.member_count !== null && job.next_seq >= 100);

/** Polls the job through `server` until it is no longer processing. */
const finished = (server: ServeProcess, jobId: string, what: string) =>
  until(async () => {
    const job = await get(server, `/v1/exports/${jobId}`);
    return job.status === 'processing' ? undefined : job;
  }, 60_000, what);

/** The finished job's file, downloaded through `server`, holds every person it lists, in order. */
async function expectWholeFile(server: ServeProcess, downloadUrl: string): Promise<void> {
  const file = await fetch(downloadUrl.replace(/^http:\/\/[^/]+/, server.url));
  expect(file.status).toBe(200);
  const csv = await parseCsv(await file.text());
  expect(csv.rows).toHaveLength(PEOPLE);
  expect(csv.rows.map(personFromCsv)).toEqual(await everyone(server));
}

describe.each(SHARED_DATABASES)('an export whose process is killed, on $name', (database) => {
  it('is taken over by another process once its lease runs out, and its file holds every person exactly once, in order', async () => {
    const work = mkdtempSync(join(dir, 'run-'));
    const { db, inspect } = await database.open(work);
    const wholeFile = database !== sqliteFile;
    const ARGS = argsFor(wholeFile);
    // One process seeds first, so the others start on a ready database.
    const first = await startServe('takeover-1', ['--db', db, ...ARGS], { dir: work });
    const others = await startServers(2, 'takeover', ['--db', db, ...ARGS], { dir: work });
    const servers = [first, ...others];
    const inspector = inspect();
    const jobRow = async (id: string) => (await inspector.rows<JobRow>(`select status, next_seq, member_count, attempts, lease_owner from export_jobs where id = '${id}'`))[0];
    try {
      const started = await fetch(`${first.url}/v1/exports`, { method: 'POST', headers: { 'x-api-key': first.keys.accountKey } });
      expect(started.status).toBe(202);
      const { jobId } = (await started.json()) as { jobId: string };

      // Killed once part of the file is written (or, writing it whole, once claimed): its lease stays behind, held by nobody alive.
      const atKill = await until(async () => {
        const job = await jobRow(jobId);
        return killNow(wholeFile)(job) ? job : undefined;
      }, 60_000, 'the first rows of the file');
      await first.process.stop('SIGKILL');
      expect(atKill).toMatchObject({ status: 'processing', attempts: 1 });
      expect(atKill.lease_owner).not.toBeNull();
      expect(atKill.next_seq).toBeLessThan(PEOPLE);

      // The survivors see the job as processing until one of them has finished it.
      const done = await finished(others[0]!, jobId, 'the job to finish on another process');
      expect(done).toMatchObject({ status: 'complete', rowCount: PEOPLE, partial: false });
      expect(await jobRow(jobId)).toMatchObject({ status: 'complete', attempts: 2, lease_owner: null });
      await expectWholeFile(others[1]!, done.downloadUrl);
    } finally {
      await stopAll(servers, 'SIGKILL');
      await inspector.close();
    }
  }, 180_000);

  it('is taken over by the process restarted after it, though the admin had moved the killed one\'s clock ahead', async () => {
    const work = mkdtempSync(join(dir, 'moved-'));
    const { db, inspect } = await database.open(work);
    const wholeFile = database !== sqliteFile;
    const ARGS = ['--db', db, ...argsFor(wholeFile)];
    const moved = await startServe('moved', ARGS, { dir: work });
    let restarted: ServeProcess | undefined;
    const inspector = inspect();
    const jobRow = async (id: string) => (await inspector.rows<JobRow>(`select status, next_seq, member_count, attempts, lease_owner from export_jobs where id = '${id}'`))[0];
    try {
      const ahead = 80 * 60;
      const clock = await fetch(`${moved.url}/_admin/clock`, { method: 'POST', headers: { authorization: `Bearer ${moved.keys.adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ advanceSeconds: ahead }) });
      expect(clock.status).toBe(200);
      const started = await fetch(`${moved.url}/v1/exports`, { method: 'POST', headers: { 'x-api-key': moved.keys.accountKey } });
      expect(started.status).toBe(202);
      const { jobId } = (await started.json()) as { jobId: string };
      await until(async () => (killNow(wholeFile)(await jobRow(jobId)) ? true : undefined), 60_000, 'the first rows of the file');
      await moved.process.stop('SIGKILL');

      // A new process on the database, its clock where the system's is: the lease it finds runs out as any other.
      restarted = await startServe('restarted', ARGS, { dir: work });
      const done = await finished(restarted, jobId, 'the job to finish on the restarted process');
      expect(done).toMatchObject({ status: 'complete', rowCount: PEOPLE, partial: false });
      // What the client sees stays on the API's clock: the job was created while it read ahead.
      expect(Date.parse(done.createdAt)).toBeGreaterThan(Date.now() + (ahead - 600) * 1000);
      expect(await jobRow(jobId)).toMatchObject({ status: 'complete', attempts: 2, lease_owner: null });
      await expectWholeFile(restarted, done.downloadUrl);
    } finally {
      await stopAll([moved, restarted], 'SIGKILL');
      await inspector.close();
    }
  }, 180_000);
});
