import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, ManualClock, type Api } from '../../adapters/node/index.ts';
import { expectStatsExact } from '../support/stats-oracle.ts';
import { oneLine, runBin } from './bin.ts';

/** seed, load and keys through the built bin, checked through the API over the same file. */
describe('visitor-intelligence seed, load and keys (built bin)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vi-cli-data-'));
  const db = join(dir, 'demo.sqlite');
  const run = (...args: string[]) => runBin(args, { cwd: dir });
  let accountKey: string;

  /** Reads through the API over the database file, as a server on it would answer. */
  async function get(path: string, key: string): Promise<Response> {
    const api: Api = await createApi({ database: db });
    try {
      return await api.fetch(new Request(`http://x${path}`, { headers: { 'x-api-key': key } }));
    } finally {
      await api.close();
    }
  }

  beforeAll(async () => {
    const seeded = await run('seed', '--db', 'demo.sqlite', '--people', '30', '--seed', '3', '--anchor', '2026-11-20T12:00:00Z');
    expect(seeded.code, seeded.stderr).toBe(0);
    accountKey = /vi_live_[0-9a-f]{40}/.exec(seeded.stdout)![0];
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('seed creates a demo database whose printed key reads it, and refuses to overwrite it', async () => {
    const people = await (await get('/v1/people?limit=100', accountKey)).json();
    expect(people.data).toHaveLength(30);
    const again = await run('seed', '--db', 'demo.sqlite');
    expect(again.code).toBe(2);
    expect(oneLine(again.stderr)).toBe('error: --db demo.sqlite already exists; delete it or name a new file');
  });

  it('load reads JSON, NDJSON and CSV (visits as a JSON cell), companies first whatever the order given', async () => {
    writeFileSync(join(dir, 'companies.json'), JSON.stringify([{ id: 'co_cli', name: 'CLI Corp', domain: 'cli.example', employeeCount: 12, isHotCompany: true }]));
    const visit = (domain: string) => ({ domain, visitCount: 2, firstSeen: '2026-11-10T09:00:00Z', lastSeen: '2026-11-19T09:00:00Z' });
    writeFileSync(join(dir, 'people.ndjson'), `${JSON.stringify({ id: 'per_cli1', firstName: 'Ada', companyId: 'co_cli', visits: [visit('initech.test')] })}\n\n`);
    const visits = JSON.stringify([visit('globex.example')]).replace(/"/g, '""');
    writeFileSync(join(dir, 'more-people.csv'), `id,firstName,lastName,isHotLead,companyId,visits\r\nper_cli2,Grace,"Hopper, R.",true,co_cli,"${visits}"\r\n`);
    writeFileSync(
      join(dir, 'events.csv'),
      'eventId,personId,sessionId,eventType,timestamp,url,domain,scrollPercentage\nevt_cli1,per_cli1,s1,scroll,2026-11-19T09:00:00Z,https://initech.test/pricing,initech.test,75\n',
    );
    const { code, stdout, stderr } = await run('load', 'events.csv', 'people.ndjson', 'companies.json', '--db', 'demo.sqlite');
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('companies.json: loaded 1 companies into acc_demo');
    expect(stdout).toContain('people.ndjson: loaded 1 people');
    expect(stdout).toContain('events.csv: loaded 1 new events (0 already loaded)');
    const csv = await run('load', 'more-people.csv', '--kind', 'people', '--db', 'demo.sqlite');
    expect(csv.code, csv.stderr).toBe(0);

    const grace = await (await get('/v1/people/per_cli2', accountKey)).json();
    expect(grace.data).toMatchObject({ firstName: 'Grace', lastName: 'Hopper, R.', isHotLead: true, domain: 'globex.example', visitCount: 2 });
    expect(grace.data.companyData).toMatchObject({ companyId: 'co_cli', employeeCount: 12 });
    const events = await (await get('/v1/people/per_cli1/events', accountKey)).json();
    expect(events.data).toEqual([expect.objectContaining({ eventId: 'evt_cli1', scrollPercentage: 75 })]);
  });

  it('seed and load leave /v1/stats equal to a direct count of the file, an event loaded twice counted once', async () => {
    writeFileSync(join(dir, 'events-again.ndjson'), ['evt_cli1', 'evt_cli2'].map((id, i) => JSON.stringify({ eventId: id, personId: 'per_cli1', sessionId: 's2', eventType: 'page_view', timestamp: `2026-11-20T0${i}:30:00Z`, url: 'https://initech.test/', domain: 'initech.test' })).join('\n'));
    const loaded = await run('load', 'events-again.ndjson', '--db', 'demo.sqlite');
    expect(loaded.code, loaded.stderr).toBe(0);
    expect(loaded.stdout).toContain('loaded 1 new events (1 already loaded)');
    const now = Date.parse('2026-11-20T12:34:56Z') / 1000;
    const api = await createApi({ database: db, clock: new ManualClock(now * 1000) });
    try {
      for (const days of [1, 2, 30, 365]) {
        await expectStatsExact(api, accountKey, 'acc_demo', {}, days, now);
        await expectStatsExact(api, accountKey, 'acc_demo', { domain: 'initech.test' }, days, now);
      }
    } finally {
      await api.close();
    }
  });

  it('load stops at an item the admin surface refuses: one line naming the file, line and item; exit 2; nothing of that file loaded', async () => {
    const good = { id: 'per_cli3', visits: [{ domain: 'initech.test', visitCount: 1, firstSeen: '2026-11-01T00:00:00Z', lastSeen: '2026-11-01T00:00:00Z' }] };
    writeFileSync(join(dir, 'people-bad.ndjson'), `${JSON.stringify(good)}\n${JSON.stringify({ ...good, id: 'per_cli4', companyId: 'co_nope' })}\n`);
    const { code, stderr } = await run('load', 'people-bad.ndjson', '--db', 'demo.sqlite');
    expect(code).toBe(2);
    expect(oneLine(stderr)).toBe('error: people-bad.ndjson line 2: people[1].companyId co_nope is not a company of this account');
    expect((await get('/v1/people/per_cli3', accountKey)).status).toBe(404);
  });

  it.each([
    ['notes.txt', 'error: notes.txt: cannot tell what it holds; name it companies…, people… or events…, or pass --kind'],
    ['people.xml', 'error: people.xml: cannot tell its format; name it .json (an array), .ndjson (one object per line) or .csv (a header row)'],
    ['people-object.json', 'error: people-object.json: a .json file holds one array of people'],
  ])('load refuses %s in one line', async (file, message) => {
    writeFileSync(join(dir, file), '{"id":"x"}');
    const { code, stderr } = await run('load', file, '--db', 'demo.sqlite');
    expect(code).toBe(2);
    expect(oneLine(stderr)).toBe(message);
  });

  it('load refuses a database that does not exist yet, and creates none', async () => {
    writeFileSync(join(dir, 'companies-x.json'), '[]');
    const { code, stderr } = await run('load', 'companies-x.json', '--db', 'missing.sqlite');
    expect(code).toBe(2);
    expect(oneLine(stderr)).toBe('error: --db missing.sqlite does not exist; create one with: visitor-intelligence seed --db missing.sqlite');
  });

  it('keys issue prints a working key once; list never prints values; rotate and revoke stop keys at once', async () => {
    const issued = await run('keys', 'issue', '--db', 'demo.sqlite', '--label', 'ci', '--json');
    expect(issued.code, issued.stderr).toBe(0);
    const { keyId, key } = JSON.parse(issued.stdout);
    expect((await get('/v1/stats', key)).status).toBe(200);

    const listed = await run('keys', 'list', '--db', 'demo.sqlite');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${keyId}\\s+active\\s+account\\s+-\\s+ci$`, 'm'));
    expect(listed.stdout).not.toMatch(/vi_live_/);

    const rotated = await run('keys', 'rotate', keyId, '--db', 'demo.sqlite');
    expect(rotated.code, rotated.stderr).toBe(0);
    const fresh = /vi_live_[0-9a-f]{40}/.exec(rotated.stdout)![0];
    expect((await get('/v1/stats', key)).status).toBe(403);
    expect((await get('/v1/stats', fresh)).status).toBe(200);

    const freshId = /Rotated key_[0-9a-f]+; its replacement: (key_[0-9a-f]+)/.exec(rotated.stdout)![1]!;
    expect((await run('keys', 'revoke', freshId, '--db', 'demo.sqlite')).code).toBe(0);
    expect((await get('/v1/stats', fresh)).status).toBe(403);
    const json = JSON.parse((await run('keys', 'list', '--db', 'demo.sqlite', '--json')).stdout);
    expect(json.find((k: { keyId: string }) => k.keyId === freshId).revokedAt).not.toBeNull();
  });

  it('keys answers what the admin surface refuses in one line with exit 2', async () => {
    const taken = await run('keys', 'issue', '--db', 'demo.sqlite', '--domain', 'initech.test');
    expect(taken.code).toBe(2);
    expect(oneLine(taken.stderr)).toBe('error: site initech.test already has an active key: rotate or revoke it');
    const unknown = await run('keys', 'revoke', 'key_nope', '--db', 'demo.sqlite');
    expect(unknown.code).toBe(2);
    expect(oneLine(unknown.stderr)).toBe('error: no key key_nope');
  });
});
