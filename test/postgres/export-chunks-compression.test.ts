import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { clientFor } from '../support/client.ts';
import { parseCsv } from '../support/csv.ts';
import { inProcess } from '../support/targets.ts';
import { POSTGRES_BACKENDS } from '../support/backends.ts';
import { createWorld } from '../support/world.ts';

describe.each(POSTGRES_BACKENDS)('export chunks on $name', (backend) => {
  it('are compressed with LZ4 where the server was built with it, and with its default where not, and read back whole', async () => {
    const world = await createWorld({ backend });
    const client = clientFor((await inProcess.start(world.api)).call);
    const started = await client.send('POST', '/v1/exports', world.accountKey);
    await world.api.exportsIdle();
    const job = (await client.get(`/v1/exports/${started.body.jobId}`, world.accountKey)).body;
    expect(job.status).toBe('complete');

    const { rows: built } = await sql<{ lz4: boolean }>`select 'lz4' = any(enumvals) as lz4 from pg_settings where name = 'default_toast_compression'`.execute(world.api.db);
    // Only values past ~2 KB are compressed: the first chunk (up to 400 people, ~40 K characters here) is.
    const { rows } = await sql<{ method: string | null }>`select pg_column_compression(data) as method from export_chunks where job_id = ${started.body.jobId} order by seq limit 1`.execute(world.api.db);
    expect(rows).toEqual([{ method: built[0]!.lz4 ? 'lz4' : 'pglz' }]);

    const csv = await parseCsv(await (await client.download(job.downloadUrl)).text());
    expect(csv.rows.map((r) => r.id).sort()).toEqual(world.people.map((p) => p.id).sort());
    await world.close();
  });
});
