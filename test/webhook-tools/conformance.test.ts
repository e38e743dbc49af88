import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin, startBin, stop } from '../cli/bin.ts';
import { Receiver } from '../webhooks/receiver.ts';
import { misencoded, signed } from './signed.ts';

const SECRET = `whsec_${btoa('c'.repeat(32))}`;

type Mode = 'pass' | 'tamper' | 'misencode';

/**
 * Stands between the demo server and the harness's receiver on `target`: passes deliveries on as
 * they are; or (tamper) alternately changes a body without signing it again, and re-signs an
 * activity delivery whose events are newest first and miscounted, as a broken sender would; or
 * (misencode) passes them on with each signature in non-canonical base64, a fault the core's own
 * verifier does not see.
 */
async function startProxy(target: () => number): Promise<{ url: string; mode: Mode; close(): Promise<void> }> {
  let n = 0;
  const proxy = {
    url: '',
    mode: 'pass' as Mode,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
  const server: Server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) headers[name] = String(req.headers[name]);
    if (proxy.mode === 'tamper') {
      const payload = JSON.parse(body);
      if (n++ % 2 === 0) body = body.replace('"domain":"', '"domain":"x');
      else if (payload.event === 'person.activity') {
        payload.data.events.reverse();
        payload.data.eventCount += 1;
        body = JSON.stringify(payload);
        Object.assign(headers, signed(headers['webhook-id']!, body, new Date(Number(headers['webhook-timestamp']) * 1000), SECRET));
      }
    }
    if (proxy.mode === 'misencode') headers['webhook-signature'] = misencoded(headers['webhook-signature']!);
    const answer = await fetch(`http://127.0.0.1:${target()}/`, { method: 'POST', headers, body }).catch(() => undefined);
    res.writeHead(answer?.status ?? 502).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return proxy;
}

describe('conformance --webhook-listen (built bin)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vi-conformance-hooks-'));
  let port = 0;
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  let server: Awaited<ReturnType<typeof startBin>>;

  beforeAll(async () => {
    proxy = await startProxy(() => port);
    const args = ['serve', '--port', '0', '--db', 'demo.sqlite', '--people', '20', '--keys-out', 'keys.json', '--webhook-url', proxy.url, '--webhook-secret', SECRET];
    server = await startBin([...args, '--webhook-events', 'person.identified,person.activity', '--simulate', '--simulate-every', '1'], /Simulating:/, { cwd: dir });
  }, 120_000);
  afterAll(async () => {
    if (server) await stop(server.child, 'SIGKILL');
    await proxy?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs the webhook checks against the demo server's deliveries; resolves with the exit code and each check's verdict. */
  async function conformance(timeoutSeconds = 60) {
    port = await Receiver.downPort();
    const ran = await runBin(['conformance', '--keys', 'keys.json', '--only', 'webhooks.', '--format', 'json', '--webhook-listen', String(port), '--webhook-secret', SECRET, '--webhook-timeout', String(timeoutSeconds)], { cwd: dir });
    const report = JSON.parse(ran.stdout);
    const verdicts = Object.fromEntries(report.results.filter((r: { id: string }) => r.id.startsWith('webhooks.')).map((r: { id: string; verdict: string; detail?: string }) => [r.id, r.verdict]));
    const details = Object.fromEntries(report.results.map((r: { id: string; detail?: string }) => [r.id, r.detail]));
    return { code: ran.code, verdicts, details };
  }

  it('passes every webhook check on the demo server simulating traffic', async () => {
    proxy.mode = 'pass';
    const { code, verdicts } = await conformance();
    expect(verdicts).toEqual({
      'webhooks.signature': 'passed',
      'webhooks.envelope': 'passed',
      'webhooks.identified-shape': 'passed',
      'webhooks.activity-shape': 'passed',
      'webhooks.single-site': 'passed',
      'webhooks.activity-order': 'passed',
      'webhooks.event-count': 'passed',
      'webhooks.truncated': 'passed',
      'webhooks.unique-id': 'passed',
    });
    expect(code).toBe(0);
  }, 120_000);

  it('fails the signature, order and count checks for tampered deliveries, and exits 1', async () => {
    proxy.mode = 'tamper';
    const { code, verdicts, details } = await conformance();
    expect(verdicts['webhooks.signature']).toBe('failed');
    expect(details['webhooks.signature']).toMatch(/no signature matches the secret/);
    expect(verdicts['webhooks.activity-order']).toBe('failed');
    expect(details['webhooks.activity-order']).toMatch(/oldest first/);
    expect(verdicts['webhooks.event-count']).toBe('failed');
    expect(code).toBe(1);
  }, 120_000);

  it('fails the signature check for signatures in non-canonical base64, and exits 1', async () => {
    proxy.mode = 'misencode';
    // No payload is read from a delivery that fails its signature, so the run waits out the timeout.
    const { code, verdicts, details } = await conformance(15);
    expect(verdicts['webhooks.signature']).toBe('failed');
    expect(details['webhooks.signature']).toMatch(/no signature matches the secret/);
    expect(code).toBe(1);
  }, 120_000);

  it('refuses --webhook-listen without a secret in one line, exit 2', async () => {
    const ran = await runBin(['conformance', '--keys', 'keys.json', '--webhook-listen', '0'], { cwd: dir });
    expect(ran.code).toBe(2);
    expect(ran.stderr.trim()).toBe('error: --webhook-listen needs --webhook-secret: the whsec_… secret the implementation signs with');
  });
});
