import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApi, type Api } from '../../adapters/node/index.ts';
import { POSTGRES_BACKENDS, type Backend } from '../support/backends.ts';
import { Gate } from '../support/gate.ts';
import { createWorld } from '../support/world.ts';

const dir = mkdtempSync(join(tmpdir(), 'vi-export-slots-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A POST /v1/exports through one API, in-process. */
const startExport = (api: Api, key: string) =>
  api.fetch(new Request('http://api.test/v1/exports', { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: '{}' }));

/**
 * Two APIs on one database, their export runs held at their first step so every accepted job
 * stays running; `requests` concurrent starts over both, and the statuses they got.
 */
async function concurrentStarts(options: { backend?: Backend; file?: string }, requests: number) {
  const gate = new Gate();
  const world = await createWorld({ backend: options.backend, database: options.file, exports: { pace: gate.pace } });
  const other = await createApi({ database: options.file ?? world.api.db, clock: world.clock, exports: { pace: gate.pace }, onError: () => undefined });
  try {
    const replies = await Promise.all(Array.from({ length: requests }, (_, i) => startExport(i % 2 ? other : world.api, world.accountKey)));
    const statuses: Record<number, number> = {};
    for (const reply of replies) statuses[reply.status] = (statuses[reply.status] ?? 0) + 1;
    const running = await world.api.db.selectFrom('export_jobs').select('id').where('status', '=', 'processing').execute();
    return { statuses, running: running.length };
  } finally {
    gate.open();
    await other.close();
    await world.close();
  }
}

describe('the limit of three running exports per account, across API processes', () => {
  it('holds for two APIs on one SQLite file: of eight concurrent starts, three run and five get 429', async () => {
    expect(await concurrentStarts({ file: join(dir, 'slots.db') }, 8)).toEqual({ statuses: { 202: 3, 429: 5 }, running: 3 });
  });

  it.each(POSTGRES_BACKENDS.map((backend) => ({ name: backend.name, backend })))('holds for two APIs on one Postgres schema ($name)', async ({ backend }) => {
    expect(await concurrentStarts({ backend }, 8)).toEqual({ statuses: { 202: 3, 429: 5 }, running: 3 });
  });
});
