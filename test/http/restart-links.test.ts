import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createApi, ManualClock, type Api } from '../../adapters/node/index.ts';
import { clientFor, errorCode, replyOf, runExport } from '../support/client.ts';
import { TARGETS, type Client, type Target } from '../support/targets.ts';
import { walkFrom } from '../support/walks.ts';
import { createWorld, NOW } from '../support/world.ts';

const dir = mkdtempSync(join(tmpdir(), 'vi-restart-links-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What a first process handed out before it stopped: a walk's first page and cursor, and a finished export. */
interface Handed {
  first: any[];
  cursor: string;
  scopedFirst: any[];
  scopedCursor: string;
  downloadUrl: string;
  jobId: string;
  csv: string;
}

// docs/embedding.md: createApi's `secret` signs cursors (and download links), by default "a random secret
// kept in the database"; api.close() closes a database file createApi opened. So a new process
// over the same file honours what the old one handed out, unless it signs with another secret.
describe.each(TARGETS)('cursors and download links across a restart ($name)', (target: Target) => {
  let running: { api: Api; close: () => Promise<void> }[] = [];
  let n = 0;
  afterEach(async () => {
    for (const r of running.reverse()) await r.close();
    running = [];
  });

  /** Serves `api` through the target; stopped (server, then API and its database) after the test unless stopped first. */
  const serve = async (api: Api): Promise<{ client: Client; stop: () => Promise<void> }> => {
    const started = await target.start(api);
    const entry = { api, close: async () => (await started.close(), await api.close()) };
    running.push(entry);
    const stop = async () => {
      running = running.filter((r) => r !== entry);
      await entry.close();
    };
    return { client: clientFor(started.call), stop };
  };

  /** Reads a first page (account and scoped) and runs an export to its end, then stops the process. */
  const handOut = async (api: Api, keys: { account: string; scoped: string }): Promise<Handed> => {
    const { client, stop } = await serve(api);
    const page = (await client.get('/v1/people?limit=30', keys.account)).body;
    const scoped = (await client.get('/v1/people?limit=3', keys.scoped)).body;
    const run = await runExport(client, keys.account, { isHotLead: true }, { idle: () => api.exportsIdle() });
    await stop();
    return { first: page.data, cursor: page.pagination.nextCursor, scopedFirst: scoped.data, scopedCursor: scoped.pagination.nextCursor, downloadUrl: run.job.downloadUrl, jobId: run.job.jobId, csv: run.text };
  };

  /** A world on a file of its own, and its keys. */
  const fileWorld = async () => {
    const database = join(dir, `${target.name.replace(/\W/g, '-')}-${n++}.sqlite`);
    const world = await createWorld({ database });
    return { database, world, keys: { account: world.accountKey, scoped: world.scopedKeys['beta.example']! } };
  };

  /** A minute after the first process: within the cursor's hour and the link's 900 seconds. */
  const later = () => new ManualClock(NOW + 60_000);

  /** Asserts that the restarted process honours what was handed out. */
  const expectHonoured = async (client: Client, handed: Handed, keys: { account: string; scoped: string }, full: { account: any[]; scoped: any[] }) => {
    const rest = await walkFrom(client, '/v1/people', keys.account, handed.cursor, 30);
    expect([...handed.first, ...rest]).toEqual(full.account);
    const scopedRest = await walkFrom(client, '/v1/people', keys.scoped, handed.scopedCursor, 3);
    expect([...handed.scopedFirst, ...scopedRest]).toEqual(full.scoped);
    const file = await client.download(handed.downloadUrl);
    expect(file.status).toBe(200);
    expect(await file.text()).toBe(handed.csv);
  };

  /** Asserts that the restarted process refuses both, with the spec's error envelope. */
  const expectRefused = async (client: Client, handed: Handed, keys: { account: string; scoped: string }) => {
    for (const [cursor, key] of [
      [handed.cursor, keys.account],
      [handed.scopedCursor, keys.scoped],
    ] as const) {
      const reply = await client.get(`/v1/people?limit=30&cursor=${encodeURIComponent(cursor)}`, key);
      expect(reply.status).toBe(400);
      expect(errorCode(reply)).toBe('invalid_cursor');
    }
    const link = await replyOf(await client.download(handed.downloadUrl));
    expect(link.status).toBe(403);
    expect(errorCode(link)).toBe('forbidden');
  };

  it('honours an old cursor and an old download link after a restart over the same database and its stored secret', async () => {
    const { database, world, keys } = await fileWorld();
    const handed = await handOut(world.api, keys);
    const restarted = await serve(await createApi({ database, clock: later() }));
    const full = { account: (await restarted.client.walk('/v1/people', keys.account)).rows, scoped: (await restarted.client.walk('/v1/people', keys.scoped)).rows };
    await expectHonoured(restarted.client, handed, keys, full);
  });

  it('honours them after a restart that passes the same explicit secret', async () => {
    const { database, world, keys } = await fileWorld();
    await world.api.close();
    const first = await createApi({ database, clock: new ManualClock(NOW), secret: 'shared secret one' });
    const handed = await handOut(first, keys);
    const restarted = await serve(await createApi({ database, clock: later(), secret: 'shared secret one' }));
    const full = { account: (await restarted.client.walk('/v1/people', keys.account)).rows, scoped: (await restarted.client.walk('/v1/people', keys.scoped)).rows };
    await expectHonoured(restarted.client, handed, keys, full);
  });

  it('refuses them, cursors with 400 invalid_cursor and links with 403 forbidden, after a restart with another secret', async () => {
    const { database, world, keys } = await fileWorld();
    await world.api.close();
    const first = await createApi({ database, clock: new ManualClock(NOW), secret: 'shared secret one' });
    const handed = await handOut(first, keys);
    const other = await serve(await createApi({ database, clock: later(), secret: 'shared secret two' }));
    await expectRefused(other.client, handed, keys);
    await other.stop();
    // Leaving the secret out falls back to the one stored in the database, which is another secret too.
    const stored = await serve(await createApi({ database, clock: later() }));
    await expectRefused(stored.client, handed, keys);
  });

  it('refuses what the stored secret signed once a restart passes an explicit secret instead, and polling then signs a link that works', async () => {
    const { database, world, keys } = await fileWorld();
    const handed = await handOut(world.api, keys);
    const restarted = await serve(await createApi({ database, clock: later(), secret: 'a secret of its own' }));
    await expectRefused(restarted.client, handed, keys);
    // The job and its file are still there: polling hands out a link under the new secret, with the same expiry.
    const polled = await restarted.client.get(`/v1/exports/${handed.jobId}`, keys.account);
    expect(polled.status).toBe(200);
    expect(polled.body.downloadUrl).not.toBe(handed.downloadUrl);
    expect(new URL(polled.body.downloadUrl).searchParams.get('expires')).toBe(new URL(handed.downloadUrl).searchParams.get('expires'));
    const file = await restarted.client.download(polled.body.downloadUrl);
    expect(file.status).toBe(200);
    expect(await file.text()).toBe(handed.csv);
  });
});
