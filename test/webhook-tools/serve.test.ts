import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin, startBin, stop } from '../cli/bin.ts';
import { Receiver } from '../webhooks/receiver.ts';

const SECRET = `whsec_${btoa('s'.repeat(32))}`;

/** Waits (boundedly) until the receiver holds what `enough` wants. */
async function until(enough: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!enough()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('serve --webhook-url … --simulate (built bin)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vi-serve-hooks-'));
  let receiver: Receiver;
  let server: Awaited<ReturnType<typeof startBin>>;
  let keys: { baseUrl: string; accountKey: string };

  beforeAll(async () => {
    receiver = await Receiver.start();
    const args = ['serve', '--port', '0', '--db', 'demo.sqlite', '--people', '20', '--keys-out', 'keys.json'];
    server = await startBin([...args, '--webhook-url', receiver.url, '--webhook-secret', SECRET, '--webhook-events', 'person.activity', '--simulate', '--simulate-every', '1', '--simulate-people', '2'], /Simulating:/, { cwd: dir });
    keys = JSON.parse(readFileSync(join(dir, 'keys.json'), 'utf8'));
  }, 120_000);
  afterAll(async () => {
    if (server) await stop(server.child, 'SIGKILL');
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('says where deliveries go and how to check them', () => {
    expect(server.output()).toMatch(/Webhooks: person\.identified, person\.activity to http:\/\/127\.0\.0\.1:\d+\/hooks \(endpoint whe_\w+\)/);
    expect(server.output()).toContain(`visitor-intelligence webhooks listen --port ${receiver.port} --secret ${SECRET}`);
  });

  it('sends simulated people and their activity, signed with the secret, and serves them in the read API', async () => {
    await until(() => receiver.received.some((r) => r.json?.event === 'person.activity') && receiver.received.some((r) => r.json?.event === 'person.identified'), 'both kinds');
    const verifier = new Webhook(SECRET);
    for (const got of receiver.received) expect(verifier.verify(got.body, got.headers)).toEqual(got.json);
    const identified = receiver.received.find((r) => r.json.event === 'person.identified')!.json;
    const read = await fetch(`${keys.baseUrl}/v1/people/${identified.data.person.id}`, { headers: { 'x-api-key': keys.accountKey } });
    expect(read.status).toBe(200);
    expect((await read.json()).data).toMatchObject({ id: identified.data.person.id, email: identified.data.person.email });
    const activity = receiver.received.find((r) => r.json.event === 'person.activity')!.json;
    const events = await fetch(`${keys.baseUrl}/v1/people/${activity.data.person.id}/events?limit=100`, { headers: { 'x-api-key': keys.accountKey } });
    const ids = (await events.json()).data.map((e: { eventId: string }) => e.eventId);
    expect(ids).toEqual(expect.arrayContaining(activity.data.events.map((e: { eventId: string }) => e.eventId)));
  });

  it('keeps simulating: later ticks bring more people', async () => {
    const people = () => new Set(receiver.received.filter((r) => r.json?.event === 'person.identified').map((r) => r.json.data.person.id)).size;
    const seen = people();
    await until(() => people() > seen, 'another tick');
  });
});

describe('serve webhook flag mistakes (built bin)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vi-serve-hook-flags-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const serve = (...flags: string[]) => runBin(['serve', '--port', '0', '--db', 'never.sqlite', ...flags], { cwd: dir });

  it('refuses a bad URL, secret or event kind, or a secret without a URL, in one line with exit 2 before seeding', async () => {
    const cases: [string[], RegExp][] = [
      [['--webhook-url', 'ftp://partner.example/in'], /--webhook-url .*Must be an http or https URL/],
      [['--webhook-url', 'http://127.0.0.1:9/', '--webhook-secret', 'sekrit'], /--webhook-secret .*Must be whsec_ followed by the base64 of 24 to 64 bytes/],
      [['--webhook-url', 'http://127.0.0.1:9/', '--webhook-events', 'person.identified,person.deleted'], /--webhook-events .*"person\.deleted" is not an event kind; use person\.identified, person\.activity/],
      [['--webhook-secret', SECRET], /^error: --webhook-secret needs --webhook-url/],
    ];
    for (const [flags, message] of cases) {
      const ran = await serve(...flags);
      expect(ran.code).toBe(2);
      expect(ran.stderr.split('\n')[0]).toMatch(message);
    }
    expect(() => readFileSync(join(dir, 'never.sqlite'))).toThrow();
  });
});
