import { afterEach, describe, expect, it } from 'vitest';
import { startBin, stop } from '../cli/bin.ts';
import { activityPayload, identifiedPayload, post, SECRET, signed } from './signed.ts';

/**
 * Webhooks are delivered at least once: a retry repeats a webhook-id, and a receiver that checks
 * deliveries reports it as a duplicate, never as a new delivery. A repeated webhook-id carrying
 * other content is not a retry but a second message under one id: a failure.
 */
type Started = Awaited<ReturnType<typeof startBin>> & { url: string; exited: Promise<number | null> };
let running: Started | undefined;
afterEach(async () => {
  if (running) await stop(running.child, 'SIGKILL');
  running = undefined;
});

/** Starts the built bin and waits for the receiver's URL (the `pattern`'s first group) on its output. */
async function start(args: string[], pattern: RegExp): Promise<Started> {
  const started = await startBin(args, pattern);
  const exited = new Promise<number | null>((resolve) => started.child.once('exit', (code) => resolve(code)));
  running = { ...started, url: pattern.exec(started.output())![1]!, exited };
  return running;
}

const listen = (args: string[]) => start(['webhooks', 'listen', '--port', '0', '--secret', SECRET, ...args], /Listening for webhook deliveries on (\S+)/);

describe('webhooks listen (built bin) and repeated webhook-ids', () => {
  it('reports a delivery POSTed three times as one delivery and two duplicates, which do not count toward --count', async () => {
    const listener = await listen(['--count', '2', '--json']);
    const first = activityPayload('msg_retried');
    const body = JSON.stringify(first);
    const headers = signed('msg_retried', body);
    // The very same request twice more, as a sender whose answer got lost sends it again.
    for (let i = 0; i < 3; i++) expect((await post(listener.url, first, headers)).status).toBe(200);
    expect(listener.child.exitCode, 'three copies of one delivery are not --count 2 deliveries').toBeNull();
    expect((await post(listener.url, identifiedPayload('msg_other'))).status).toBe(200);
    expect(await listener.exited).toBe(0);
    const lines = listener.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.webhookId, l.duplicate, l.valid])).toEqual([
      ['msg_retried', false, true],
      ['msg_retried', true, true],
      ['msg_retried', true, true],
      ['msg_other', false, true],
    ]);
    expect(listener.output()).toContain('2 deliveries received, 0 invalid, 2 duplicates (the same webhook-id again: retries, not counted)');
  });

  it('takes a retry signed later, whose payload timestamp is its own send time, as a duplicate', async () => {
    const listener = await listen(['--count', '2']);
    const sent = new Date(Date.now() - 30_000);
    const first = activityPayload('msg_late', sent);
    expect((await post(listener.url, first, signed('msg_late', JSON.stringify(first), sent))).status).toBe(200);
    expect((await post(listener.url, { ...first, timestamp: new Date().toISOString() })).status).toBe(200);
    expect(listener.child.exitCode).toBeNull();
    expect((await post(listener.url, identifiedPayload('msg_next'))).status).toBe(200);
    expect(await listener.exited).toBe(0);
    expect(listener.output()).toMatch(/^duplicate 200 person\.activity msg_late alpha\.example \(alpha\) per_ada 2 events: a retry of an earlier delivery, not counted$/m);
    expect(listener.output()).toContain('2 deliveries received, 0 invalid, 1 duplicate');
  });

  it('refuses a repeated webhook-id with other content, 400, naming it, and exits 1', async () => {
    const listener = await listen(['--count', '2']);
    expect((await post(listener.url, activityPayload('msg_reused'))).status).toBe(200);
    const other = await post(listener.url, activityPayload('msg_reused', new Date(), 3));
    expect(other.status).toBe(400);
    expect(other.text).toBe('webhooks.unique-id: webhook-id msg_reused came before with other data: a retry repeats its delivery\'s content\n');
    expect(await listener.exited).toBe(1);
    expect(listener.output()).toContain('2 deliveries received, 1 invalid');
  });
});

describe('conformance --webhook-listen (built bin) and repeated webhook-ids', () => {
  /** The webhook checks alone need no API: nothing listens at the base URL. */
  const conformance = () =>
    start(['conformance', '--base-url', 'http://127.0.0.1:9', '--key', 'k', '--only', 'webhooks.', '--format', 'json', '--webhook-listen', '0', '--webhook-secret', SECRET, '--webhook-timeout', '30'], /Receiving webhook deliveries on (\S+)/);

  const verdicts = async (run: Started) => {
    expect(await run.exited).not.toBeNull();
    const report = JSON.parse(run.output().slice(run.output().indexOf('{')));
    return Object.fromEntries(report.results.map((r: { id: string; verdict: string; detail?: string }) => [r.id, `${r.verdict}${r.detail ? `: ${r.detail}` : ''}`]));
  };

  it('counts a miscounted delivery sent three times as one failing delivery, and passes the unique-id statement', async () => {
    const run = await conformance();
    const wrong = activityPayload('msg_miscounted');
    wrong.data.eventCount = 5;
    for (let i = 0; i < 3; i++) expect((await post(run.url, wrong)).status).toBe(400);
    expect((await post(run.url, identifiedPayload('msg_identified'))).status).toBe(200);
    const got = await verdicts(run);
    expect(got['webhooks.event-count']).toBe('failed: 1 of 1 deliveries: msg_miscounted: data.eventCount is 5 but data.events holds 2');
    expect(got['webhooks.unique-id']).toBe('passed');
    expect(got['webhooks.signature']).toBe('passed');
  });

  it('fails the unique-id statement when a webhook-id comes again with other content', async () => {
    const run = await conformance();
    expect((await post(run.url, activityPayload('msg_twice'))).status).toBe(200);
    expect((await post(run.url, { ...activityPayload('msg_twice'), domain: 'beta.example' })).status).toBe(400);
    expect((await post(run.url, identifiedPayload('msg_identified'))).status).toBe(200);
    const got = await verdicts(run);
    expect(got['webhooks.unique-id']).toBe('failed: 1 of 3 deliveries: msg_twice: webhook-id msg_twice came before with other domain: a retry repeats its delivery\'s content');
    expect(await run.exited).toBe(1);
  });
});
