import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, ManualClock, type Api, type PersonInput } from '../../adapters/node/index.ts';
import { clientFor, errorCode, runExport } from '../support/client.ts';
import { Replication, query } from '../support/standby.ts';
import { ThrowawayCluster } from '../support/throwaway-cluster.ts';
import { Receiver } from '../webhooks/receiver.ts';
import { ACCOUNT, event, NOW, person, SITES } from '../webhooks/fixtures.ts';
import { runBin, startBin, stop } from '../cli/bin.ts';

/**
 * The API over a primary and a streaming hot standby of it, both throwaway clusters made for this
 * file (`pg_basebackup -R`). The standby refuses every write, so an API that starts and answers
 * over it has migrated and written nothing there. Pausing its replay shows which side each answer
 * came from: what was loaded on the primary meanwhile is missing from reads, and only from them.
 */

const ADMIN_TOKEN = 'read-replica-admin-token';

let primary: ThrowawayCluster;
let standby: ThrowawayCluster;
let replication: Replication;

beforeAll(async () => {
  primary = await ThrowawayCluster.create();
  standby = await ThrowawayCluster.standbyOf(primary);
  replication = new Replication(primary, standby);
}, 120_000);

afterAll(async () => {
  await standby?.drop();
  await primary?.drop();
});

/** Runs `body` with the standby's replay paused, resuming it whatever happens. */
async function whilePaused(body: () => Promise<void>): Promise<void> {
  await replication.pause();
  try {
    await body();
  } finally {
    await replication.resume();
  }
}

const ids = (reply: { body: { data: { id: string }[] } }) => reply.body.data.map((row) => row.id);

describe('createApi({ database, readDatabase }) over a streaming standby', () => {
  let api: Api;
  let key: string;
  let receiver: Receiver;
  const client = clientFor((path, init) => api.fetch(new Request(`http://api.test${path}`, init)));
  const adminPost = (path: string, body: unknown) =>
    client.send('POST', `/_admin${path}`, undefined, JSON.stringify(body), { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' });

  beforeAll(async () => {
    receiver = await Receiver.start();
    api = await createApi({
      database: primary.url(),
      readDatabase: standby.url(),
      clock: new ManualClock(NOW),
      admin: { token: ADMIN_TOKEN },
      rateLimits: { accountPerHour: 1_000_000 },
      readWait: { writeMs: 3000 },
      webhooks: { background: false },
      onError: (error) => console.error(error),
    });
    await api.admin.createAccount({ id: ACCOUNT, name: 'Replicated partner' });
    for (const site of SITES) await api.admin.registerSite(ACCOUNT, site);
    await api.admin.loadCompanies(ACCOUNT, [{ id: 'co_1', name: 'Analytical Engines', domain: 'engines.example' }]);
    await api.admin.loadPeople(ACCOUNT, [person('per_1', ['alpha.example'], { companyId: 'co_1' }), person('per_2', ['beta.example'])]);
    key = (await api.admin.issueAccountKey(ACCOUNT)).key;
    await api.admin.webhooks.create(ACCOUNT, { url: receiver.url });
    expect(await api.catchUpReads()).toBe(true);
  }, 120_000);

  afterAll(async () => {
    await api?.close();
    await receiver?.close();
  });

  it('reads pages, single resources, journeys, companies and stats from the standby: what the primary loads meanwhile shows once replayed', async () => {
    const stats = (await client.get('/v1/stats', key)).body;
    await whilePaused(async () => {
      await api.admin.loadCompanies(ACCOUNT, [{ id: 'co_2', name: 'Difference Engines', domain: 'difference.example' }]);
      await api.admin.loadPeople(ACCOUNT, [person('per_3', ['alpha.example'], { companyId: 'co_2' })]);
      await api.admin.loadEvents(ACCOUNT, [event('evt_1', 'per_3', 'alpha.example', 5)]);
      // On the primary, loaded; on every read, not yet.
      expect(await api.db.selectFrom('people').select('id').where('id', '=', 'per_3').executeTakeFirst()).toBeDefined();
      expect(ids(await client.get('/v1/people', key))).toEqual(['per_2', 'per_1']);
      expect(errorCode(await client.get('/v1/people/per_3', key))).toBe('not_found');
      expect(errorCode(await client.get('/v1/people/per_3/events', key))).toBe('not_found');
      expect(ids(await client.get('/v1/companies', key))).toEqual(['co_1']);
      expect(errorCode(await client.get('/v1/companies/co_2', key))).toBe('not_found');
      expect((await client.get('/v1/stats', key)).body).toEqual(stats);
      // Bounded: the standby cannot catch up while paused, and the wait says so.
      expect(await api.catchUpReads()).toBe(false);
    });
    expect(await api.catchUpReads()).toBe(true);
    expect(ids(await client.get('/v1/people', key))).toEqual(['per_3', 'per_2', 'per_1']);
    expect((await client.get('/v1/people/per_3/events', key)).body.data.map((e: { eventId: string }) => e.eventId)).toEqual(['evt_1']);
    expect(ids(await client.get('/v1/companies', key))).toContain('co_2');
    expect((await client.get('/v1/stats', key)).body).not.toEqual(stats);
  });

  it('checks keys and counts requests on the primary: a key issued while replay is paused works at once, and once revoked stops at once', async () => {
    await whilePaused(async () => {
      const issued = await api.admin.issueAccountKey(ACCOUNT, { label: 'during the pause' });
      const first = await client.get('/v1/people', issued.key);
      const second = await client.get('/v1/people', issued.key);
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(Number(first.headers.get('x-ratelimit-remaining')) - 1);
      await api.admin.revokeKey(issued.keyId);
      expect(errorCode(await client.get('/v1/people', issued.key))).toBe('forbidden');
    });
  });

  it('builds exports and webhook payloads from the primary, and sends after readWait.writeMs while the standby cannot catch up', async () => {
    await whilePaused(async () => {
      await api.admin.loadPeople(ACCOUNT, [person('per_hooked', ['gamma.example'])]);
      expect(errorCode(await client.get('/v1/people/per_hooked', key))).toBe('not_found');
      const run = await runExport(client, key, undefined, { idle: () => api.exportsIdle() });
      expect(run.csv.rows.map((row) => row.id)).toContain('per_hooked');
      await api.webhooks.deliverDue();
      expect(receiver.received.map((got) => got.json.data.person.id)).toContain('per_hooked');
    });
  });

  it('sends a webhook delivery once reads show the person it announces', async () => {
    // Each commit applied a while after the primary made it: a receiver reading the person at once finds it.
    await replication.delayApply('1s');
    try {
      await api.admin.loadPeople(ACCOUNT, [person('per_announced', ['gamma.example'])]);
      await api.webhooks.deliverDue();
      expect(receiver.received.map((got) => got.json.data.person.id)).toContain('per_announced');
      expect((await client.get('/v1/people/per_announced', key)).status).toBe(200);
    } finally {
      await replication.delayApply(null);
    }
  });

  it('answers an admin write over HTTP once the standby shows it, or after readWait.writeMs when it cannot', async () => {
    // Each commit applied a while after the primary made it: the next read finds the load all the same.
    await replication.delayApply('1s');
    try {
      expect((await adminPost(`/accounts/${ACCOUNT}/people`, [person('per_http', ['alpha.example'])])).body.data).toEqual({ received: 1, loaded: 1 });
      expect((await client.get('/v1/people/per_http', key)).status).toBe(200);
    } finally {
      await replication.delayApply(null);
    }
    await whilePaused(async () => {
      expect((await adminPost(`/accounts/${ACCOUNT}/people`, [person('per_paused', ['alpha.example'])])).status).toBe(200);
      expect(errorCode(await client.get('/v1/people/per_paused', key))).toBe('not_found');
    });
    expect(await api.catchUpReads()).toBe(true);
    expect((await client.get('/v1/people/per_paused', key)).status).toBe(200);
  });

  it('keeps a cursor made on the standby valid as it replays newer people', async () => {
    const whole = ids(await client.get('/v1/people?limit=100', key));
    const first = await client.get('/v1/people?limit=2', key);
    await api.admin.loadPeople(ACCOUNT, [{ ...person('per_newest', ['alpha.example']), visits: [{ domain: 'alpha.example', visitCount: 1, firstSeen: new Date(NOW - 60_000), lastSeen: new Date(NOW) }] }]);
    expect(await api.catchUpReads()).toBe(true);
    const next = await client.get(`/v1/people?limit=100&cursor=${encodeURIComponent(first.body.pagination.nextCursor)}`, key);
    expect(next.status).toBe(200);
    expect([...ids(first), ...ids(next)]).toEqual(whole);
  });

  it('answers reads 500 with Retry-After while the standby is down, keys and exports still working, and reads again once it is back', async () => {
    const revoked = await api.admin.issueAccountKey(ACCOUNT, { label: 'revoked' });
    await api.admin.revokeKey(revoked.keyId);
    await standby.stop();
    try {
      for (const path of ['/v1/people', '/v1/people/per_1', '/v1/people/per_1/events', '/v1/companies', '/v1/stats']) {
        const reply = await client.get(path, key);
        expect([reply.status, errorCode(reply), reply.headers.get('retry-after')]).toEqual([500, 'internal_error', '1']);
      }
      expect(errorCode(await client.get('/v1/people', revoked.key))).toBe('forbidden');
      const run = await runExport(client, key, undefined, { idle: () => api.exportsIdle() });
      expect(run.csv.rows.map((row) => row.id)).toContain('per_1');
    } finally {
      await standby.start();
    }
    // No restart: the read pool connects again by itself.
    let reply = await client.get('/v1/people', key);
    while (reply.status !== 200) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      reply = await client.get('/v1/people', key);
    }
    expect(ids(reply)).toContain('per_1');
  });

  it('refuses to start on a read database without the schema, and names an unreachable one', async () => {
    await expect(createApi({ database: primary.url(), readDatabase: standby.url('postgres'), readWait: { startMs: 200 } })).rejects.toThrow(
      /^the read database does not hold the database's schema after 0\.2 s \(it lacks migration 0001_initial\): is it a streaming standby of the database\?$/,
    );
    const nowhere = `postgres://postgres:hunter2@127.0.0.1:${await Receiver.downPort()}/vi`;
    await expect(createApi({ database: primary.url(), readDatabase: nowhere })).rejects.toThrow(/^cannot connect to PostgreSQL read database at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/vi: /);
  });

  it('refuses to start with the standby as its database, naming the read database option', async () => {
    await expect(createApi({ database: standby.url() })).rejects.toThrow(/^the database is a read-only standby: give its primary as the database, and the standby as the read database \(readDatabase, --read-db\)$/);
  });
});

describe('serve --read-db through the built bin', () => {
  let dir: string;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vi-read-db-'));
    await query(primary, 'create database served', [], 'postgres');
    await replication.caughtUp('postgres');
  });

  afterAll(async () => {
    if (child) await stop(child);
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the seeded demo from the standby at once, checks keys on the primary, and shows loads once replayed', async () => {
    const keysFile = join(dir, 'keys.json');
    const served = primary.url('served');
    let keys: { baseUrl: string; accountKey: string; scopedKeys: { domain: string; key: string }[] };
    const get = async (path: string, key: string) => {
      const reply = await fetch(`${keys.baseUrl}${path}`, { headers: { 'x-api-key': key } });
      return { status: reply.status, body: (await reply.json()) as any };
    };
    // The standby applies each commit a while late: serve waits for its schema, and for the seed before it listens.
    await replication.delayApply('1s');
    try {
      const started = await startBin(
        ['serve', '--db', served, '--read-db', standby.url('served'), '--port', '0', '--people', '30', '--seed', '5', '--anchor', '2026-11-20T12:00:00Z', '--admin-token', ADMIN_TOKEN, '--keys-out', keysFile],
        /Keys written to/,
      );
      child = started.child;
      expect(started.output()).toContain(`Reads from the hot standby ${standby.url('served')}`);
      keys = JSON.parse(readFileSync(keysFile, 'utf8'));
      expect((await get('/v1/people?limit=100', keys.accountKey)).body.data).toHaveLength(30);
    } finally {
      await replication.delayApply(null);
    }

    const { domain, key: siteKey } = keys.scopedKeys[0]!;
    const loaded: PersonInput[] = [{ id: 'per_from_cli', visits: [{ domain, visitCount: 1, firstSeen: '2026-11-19T12:00:00Z', lastSeen: '2026-11-20T11:00:00Z' }] }];
    writeFileSync(join(dir, 'people.json'), JSON.stringify(loaded));
    await whilePaused(async () => {
      // Issued, used, revoked on the primary, and refused at once, while the standby stands still.
      const issued = JSON.parse((await runBin(['keys', 'issue', '--db', served, '--json'])).stdout) as { keyId: string; key: string };
      expect((await get('/v1/people?limit=1', issued.key)).status).toBe(200);
      expect((await runBin(['keys', 'revoke', issued.keyId, '--db', served])).code).toBe(0);
      expect((await get('/v1/people?limit=1', issued.key)).status).toBe(403);
      expect((await runBin(['load', join(dir, 'people.json'), '--db', served])).code).toBe(0);
      expect((await get('/v1/people/per_from_cli', siteKey)).status).toBe(404);
    });
    await replication.caughtUp('served');
    expect((await get('/v1/people/per_from_cli', siteKey)).status).toBe(200);
  });
});
