import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApi, ManualClock, type Api } from '../../adapters/node/index.ts';
import { webhookHeaders } from '../../core/webhooks/signing.ts';
import { runBin, startBin, stop } from '../cli/bin.ts';
import { Receiver } from '../webhooks/receiver.ts';

const ACCOUNT = 'acc_listen';
const SECRET = `whsec_${btoa('a'.repeat(32))}`;
const OTHER_SECRET = `whsec_${btoa('b'.repeat(32))}`;

/** An API on today's time (the listener checks timestamps against its own clock), sending when told. */
let api: Api;
let clock: ManualClock;
beforeEach(async () => {
  clock = new ManualClock(Date.now());
  api = await createApi({ database: ':memory:', clock, webhooks: { background: false, random: () => 0 } });
  await api.admin.createAccount({ id: ACCOUNT, name: 'Listening partner' });
  await api.admin.registerSite(ACCOUNT, { domain: 'alpha.example', clientRef: 'alpha' });
});
afterEach(() => api.close());

/** Starts `webhooks listen` from the built bin on a free port; resolves with its URL. */
async function startListener(args: string[]) {
  const started = await startBin(['webhooks', 'listen', '--port', '0', ...args], /Listening for webhook deliveries on \S+/);
  const url = /Listening for webhook deliveries on (\S+)/.exec(started.output())![1]!;
  const exited = new Promise<number | null>((resolve) => started.child.once('exit', (code) => resolve(code)));
  return { ...started, url, exited };
}

/** Loads a new person and three events on alpha.example: one person.identified and one person.activity. */
async function loadActivity(id = 'per_ada'): Promise<void> {
  const now = clock.now();
  await api.admin.loadPeople(ACCOUNT, [{ id, email: `${id}@partner.example`, visits: [{ domain: 'alpha.example', visitCount: 1, firstSeen: now - 60_000, lastSeen: now }] }]);
  await api.admin.loadEvents(
    ACCOUNT,
    [50, 40, 30].map((s, i) => ({ eventId: `evt_${id}_${i}`, personId: id, sessionId: 'ses_1', eventType: i === 1 ? 'click' : 'page_view', clickElement: i === 1 ? 'button#demo' : undefined, timestamp: now - s * 1000, url: 'https://alpha.example/', domain: 'alpha.example' })),
  );
}

describe('visitor-intelligence webhooks listen (built bin)', () => {
  it('verifies and checks real deliveries, answers 200, prints them as JSON and exits 0 once --count is reached', async () => {
    const listener = await startListener(['--secret', SECRET, '--count', '2', '--json']);
    try {
      await api.admin.webhooks.create(ACCOUNT, { url: listener.url, secret: SECRET, events: ['person.activity'] });
      await loadActivity();
      await api.webhooks.deliverDue();
      expect(await listener.exited).toBe(0);
      const lines = listener.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
      expect(lines.map((l) => [l.valid, l.status, l.event]).sort()).toEqual([
        [true, 200, 'person.activity'],
        [true, 200, 'person.identified'],
      ]);
      expect(lines.find((l) => l.event === 'person.activity')).toMatchObject({ domain: 'alpha.example', clientRef: 'alpha', eventCount: 3, truncated: false, problems: [] });
      const [endpoint] = await api.admin.webhooks.list(ACCOUNT);
      const { deliveries } = await api.admin.webhooks.deliveries(endpoint!.id);
      expect(deliveries.map((d) => d.attempts.map((a) => a.status))).toEqual([[200], [200]]);
    } finally {
      await stop(listener.child, 'SIGKILL');
    }
  });

  it('answers 401 to deliveries signed with another secret, names the reason, and exits 1', async () => {
    const listener = await startListener(['--secret', OTHER_SECRET, '--count', '1']);
    try {
      const { id } = await api.admin.webhooks.create(ACCOUNT, { url: listener.url, secret: SECRET });
      await loadActivity();
      await api.webhooks.deliverDue();
      expect(await listener.exited).toBe(1);
      expect(listener.output()).toMatch(/INVALID 401 \? msg_\w+\n {2}webhooks\.signature: no signature matches the secret/);
      const [delivery] = (await api.admin.webhooks.deliveries(id)).deliveries;
      expect(delivery!.attempts.map((a) => a.status)).toEqual([401]);
    } finally {
      await stop(listener.child, 'SIGKILL');
    }
  });

  it('answers 401 to a real delivery whose body was tampered with, and 400 to a genuine one that breaks the spec', async () => {
    const capture = await Receiver.start();
    const listener = await startListener(['--secret', SECRET, '--count', '3']);
    try {
      await api.admin.webhooks.create(ACCOUNT, { url: capture.url, secret: SECRET, events: ['person.activity'] });
      await loadActivity();
      await api.webhooks.deliverDue();
      const activity = capture.received.find((r) => r.json.event === 'person.activity')!;
      const post = (headers: Record<string, string>, body: string) => fetch(listener.url, { method: 'POST', headers, body });

      const genuine = await post(activity.headers, activity.body);
      expect(genuine.status).toBe(200);
      const tampered = await post(activity.headers, activity.body.replace('"eventCount":3', '"eventCount":4'));
      expect(tampered.status).toBe(401);
      // Signed with the right secret, but newest first, miscounted and without truncated.
      const wrong = structuredClone(activity.json);
      wrong.data.events.reverse();
      wrong.data.eventCount = 7;
      delete wrong.data.truncated;
      const body = JSON.stringify(wrong);
      const invalid = await post(await webhookHeaders([SECRET], wrong.webhookId, Math.floor(Date.now() / 1000), body), body);
      expect(invalid.status).toBe(400);
      expect(await invalid.text()).toMatch(/webhooks\.activity-order: .*oldest first\nwebhooks\.event-count: data\.eventCount is 7 but data\.events holds 3\nwebhooks\.truncated: /);
      expect(await listener.exited).toBe(1);
      expect(listener.output()).toMatch(/^valid {3}200 person\.activity msg_\w+ alpha\.example \(alpha\) per_ada 3 events$/m);
      expect(listener.output()).toContain('3 deliveries received, 2 invalid');
    } finally {
      await stop(listener.child, 'SIGKILL');
      await capture.close();
    }
  });

  it('exits 2 when --timeout comes before --count deliveries, and 0 without --count', async () => {
    const short = await runBin(['webhooks', 'listen', '--port', '0', '--secret', SECRET, '--count', '1', '--timeout', '1']);
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('error: --timeout 1 s reached with 0 of --count 1 deliveries');
    const open = await runBin(['webhooks', 'listen', '--port', '0', '--secret', SECRET, '--timeout', '1']);
    expect(open.code).toBe(0);
  });

  it('refuses a malformed secret or a missing one in one line, exit 2', async () => {
    const bad = await runBin(['webhooks', 'listen', '--port', '0', '--secret', 'sekrit']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe('error: --secret must be whsec_ followed by the base64 of 24 to 64 bytes');
    const missing = await runBin(['webhooks', 'listen', '--port', '0']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--secret is required');
  });
});
