import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, ManualClock, type Api } from '../../adapters/node/index.ts';
import { DemoSimulationSwitch } from '../../scripts/demo/simulation-switch.ts';
import { seedDemo } from '../../scripts/demo/seed.ts';
import { inProcess } from '../support/targets.ts';
import { adminClient, TOKEN } from './support.ts';

const ACCOUNT = 'acc_demo';
const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);

describe('switching the simulated traffic over admin HTTP', () => {
  let api: Api;
  let accountKey: string;
  let admin: ReturnType<typeof adminClient>;
  let close: () => Promise<void>;
  const reported: string[] = [];
  const clock = new ManualClock(NOW);
  // Long between batches: each start runs its first batch at once, and the test stops it before the next.
  const simulation = new DemoSimulationSwitch({ accountId: ACCOUNT, everySeconds: 3600, newPeople: 2, now: () => clock.now(), report: (event) => reported.push(event instanceof Error ? event.message : JSON.stringify(event)) });

  beforeAll(async () => {
    api = await createApi({ database: ':memory:', clock, admin: { token: TOKEN, simulation }, onError: (e) => console.error(e) });
    await api.admin.createAccount({ id: ACCOUNT, name: 'Demo' });
    await seedDemo(api.admin, ACCOUNT, { seed: 3, people: 10, anchor: NOW });
    accountKey = (await api.admin.issueAccountKey(ACCOUNT)).key;
    simulation.attach(api.admin, 3);
    let call;
    ({ call, close } = await inProcess.start(api));
    admin = adminClient(call);
  });
  afterAll(async () => {
    await simulation.stop();
    await close();
    await api.close();
  });

  const people = async () => (await (await api.fetch(new Request('http://api.test/v1/stats', { headers: { 'x-api-key': accountKey } }))).json()).data.totalPeople as number;

  it('says it is off until switched on, and how it runs', async () => {
    expect((await admin.get('/_admin/simulation')).body).toEqual({ data: { running: false, everySeconds: 3600, newPeople: 2 } });
  });

  it('loads a batch of new people once switched on, and stops when switched off', async () => {
    const before = await people();
    expect((await admin.post('/_admin/simulation', { running: true })).body.data.running).toBe(true);
    // Switching off lets the batch under way finish: then it is loaded.
    expect((await admin.post('/_admin/simulation', { running: false })).body.data.running).toBe(false);
    expect(await people()).toBe(before + 2);
    expect(reported).toContain(JSON.stringify({ stopped: true }));
    expect((await admin.get('/_admin/simulation')).body.data.running).toBe(false);
  });

  it('refuses anything but running true or false, naming the field', async () => {
    const wrong = await admin.post('/_admin/simulation', { running: 'yes' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toEqual({ code: 'bad_request', message: 'running must be true or false', status: 400 });
    expect((await admin.post('/_admin/simulation', { running: true, everySeconds: 1 })).body.error.message).toBe('"everySeconds" cannot be set (running)');
    expect((await admin.get('/_admin/simulation')).body.data.running).toBe(false);
  });
});

describe('the simulated traffic routes without a simulation', () => {
  let api: Api;
  beforeAll(async () => {
    api = await createApi({ database: ':memory:', admin: { token: TOKEN } });
  });
  afterAll(() => api.close());

  it('are not there when the host runs no simulation', async () => {
    const answer = await api.fetch(new Request('http://api.test/_admin/simulation', { headers: { authorization: `Bearer ${TOKEN}` } }));
    expect(answer.status).toBe(404);
    expect((await answer.json()).error.code).toBe('not_found');
  });

  it('refuse a simulation without its methods when the API is created', async () => {
    await expect(createApi({ database: ':memory:', admin: { token: TOKEN, simulation: { state: () => ({ running: false, everySeconds: 1, newPeople: 1 }) } as never } })).rejects.toThrow('admin.simulation must have state(), start() and stop() methods');
  });
});
