import { afterEach, describe, expect, it } from 'vitest';
import { errorCode } from '../support/client.ts';
import { Gate } from '../support/gate.ts';
import { TARGETS, serveWorld, type Client } from '../support/targets.ts';
import type { World } from '../support/world.ts';

const JSON_HEADERS = { 'content-type': 'application/json' };
/** Selects nobody: its run completes in two steps (staging nobody, moving nobody). */
const EMPTY = { search: 'zzzz-no-such-person' };

// docs/implementation-choices.md, "Exports": up to three `processing` exports per account; a fourth is 429
// too_many_exports. The count is the account's, shared by all its account keys. The gate holds
// every run at its steps; a job that selects nobody finishes in its second step, so one job can
// be let through while the others stay running.
describe.each(TARGETS)('export slots shared by an account’s keys ($name)', (target) => {
  let world: World;
  let client: Client;
  const gate = new Gate();
  serveWorld(target, { exports: { pace: gate.pace, batchRows: 16 } }, (w, c) => ((world = w), (client = c)), { per: 'test' });
  afterEach(async () => {
    // Let every held job end before the world is dropped.
    gate.open();
    await world.api.exportsIdle();
    gate.close();
  });

  const start = (key: string, filters?: Record<string, unknown>) =>
    filters === undefined ? client.send('POST', '/v1/exports', key) : client.send('POST', '/v1/exports', key, JSON.stringify(filters), JSON_HEADERS);
  const status = async (jobId: string) => (await client.get(`/v1/exports/${jobId}`, world.accountKey)).body.status;
  const expectRefused = async (key: string) => {
    const reply = await start(key);
    expect(reply.status).toBe(429);
    expect(errorCode(reply)).toBe('too_many_exports');
  };

  it('counts running exports per account, not per key: two by one account key and one by the other leave no slot for either', async () => {
    const jobs = [(await start(world.accountKey)).body.jobId, (await start(world.accountKey)).body.jobId, (await start(world.secondAccountKey)).body.jobId];
    expect(jobs.every((id) => typeof id === 'string')).toBe(true);
    await expectRefused(world.accountKey);
    await expectRefused(world.secondAccountKey);
    // A key issued to the account now starts with no slot of its own either.
    await expectRefused((await world.api.admin.issueAccountKey('acc_a', { label: 'third' })).key);
    // Each key polls every job of the account, and all three are still running.
    for (const id of jobs) {
      expect(await status(id)).toBe('processing');
      expect((await client.get(`/v1/exports/${id}`, world.secondAccountKey)).body.status).toBe('processing');
    }
    // Another account's slots are its own.
    expect((await start(world.otherAccountKey)).status).toBe(202);
  });

  it('frees one slot when one of the three completes: the other key takes it, and the next start is refused again', async () => {
    const held = [(await start(world.accountKey)).body.jobId, (await start(world.accountKey)).body.jobId];
    const quick = (await start(world.secondAccountKey, EMPTY)).body.jobId;
    await expectRefused(world.secondAccountKey);
    expect(gate.waiting).toBe(3);

    // Two steps each: the empty job stages nobody, then completes with its empty move; the other
    // two stage their people, move them, and wait at their next step.
    gate.step();
    for (let turns = 0; gate.waiting < 3; turns++) {
      expect(turns, 'every job comes to its second step').toBeLessThan(1_000);
      await new Promise((r) => setImmediate(r));
    }
    gate.step();
    for (let turns = 0; (await status(quick)) === 'processing'; turns++) {
      expect(turns, 'the empty job completes after two steps').toBeLessThan(1_000);
      await new Promise((r) => setImmediate(r));
    }
    expect(await status(quick)).toBe('complete');
    for (const id of held) expect(await status(id)).toBe('processing');

    const taken = await start(world.secondAccountKey);
    expect(taken.status).toBe(202);
    await expectRefused(world.accountKey);
    await expectRefused(world.secondAccountKey);
  });
});
