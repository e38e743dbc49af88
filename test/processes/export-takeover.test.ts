import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCsv, personFromCsv } from '../support/csv.ts';
import { startServe, startServers, stopAll, type ServeProcess } from '../support/processes.ts';
import { SHARED_DATABASES } from '../support/shared-database.ts';

/**
 * An export job belongs to no process: three API processes (the built bin's `serve`) share one
 * database, the one running a job is killed with SIGKILL halfway through its file, and another
 * takes the job over once its lease has run out, finishing the file as if it had run once. On a
 * SQLite file always; on a PostgreSQL server when VI_TEST_POSTGRES_URL names one.
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

/** Polls `check` every 20 ms until it returns a value, or fails after `ms`. */
async function until<T>(check: () => Promise<T | undefined>, ms: number, what: string): Promise<T> {
  for (const deadline = Date.now() + ms; ; ) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.each(SHARED_DATABASES)('an export whose process is killed, on $name', (database) => {
  it('is taken over by another process once its lease runs out, and its file holds every person exactly once, in order', async () => {
    const work = mkdtempSync(join(dir, 'run-'));
    const { db, inspect } = await database.open(work);
    const wholeFile = database.name === 'PostgreSQL';
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
        const killNow = wholeFile ? job?.lease_owner != null : job && job.member_count !== null && job.next_seq >= 100;
        return killNow ? job : undefined;
      }, 60_000, 'the first rows of the file');
      await first.process.stop('SIGKILL');
      expect(atKill).toMatchObject({ status: 'processing', attempts: 1 });
      expect(atKill.lease_owner).not.toBeNull();
      expect(atKill.next_seq).toBeLessThan(PEOPLE);

      // The survivors see the job as processing until one of them has finished it.
      const done = await until(async () => {
        const job = await get(others[0]!, `/v1/exports/${jobId}`);
        return job.status === 'processing' ? undefined : job;
      }, 60_000, 'the job to finish on another process');
      expect(done).toMatchObject({ status: 'complete', rowCount: PEOPLE, partial: false });
      expect(await jobRow(jobId)).toMatchObject({ status: 'complete', attempts: 2, lease_owner: null });

      const file = await fetch(done.downloadUrl.replace(/^http:\/\/[^/]+/, others[1]!.url));
      expect(file.status).toBe(200);
      const csv = await parseCsv(await file.text());
      expect(csv.rows).toHaveLength(PEOPLE);
      expect(csv.rows.map(personFromCsv)).toEqual(await everyone(others[1]!));
    } finally {
      await stopAll(servers, 'SIGKILL');
      await inspector.close();
    }
  }, 180_000);
});
