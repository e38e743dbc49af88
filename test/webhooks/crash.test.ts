import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runtimeCommand } from '../../scripts/runtime-command.ts';
import { Receiver } from './receiver.ts';
import { hookedApi, verifyAt } from './setup.ts';

const dir = mkdtempSync(join(tmpdir(), 'vi-hooks-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Runs the loading child on a database file until it reports what it wrote (and, with `send`, until
 * the receiver has its first request), then kills it with SIGKILL.
 */
async function loadAndKill(database: string, receiver: Receiver, mode?: 'send' | 'send-ahead'): Promise<{ secret: string; deliveryIds: string[] }> {
  const [command, ...args] = runtimeCommand('node', 'test/webhooks/load-and-die.ts');
  const child = spawn(command!, [...args, database, receiver.url, ...(mode ? [mode] : [])], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  const deadline = Date.now() + 60_000;
  while (!output.includes('"loaded":true') || (mode !== undefined && receiver.received.length === 0)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the child did not get there:\n${output}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
  return JSON.parse(output.trim().split('\n').find((line) => line.includes('"loaded":true'))!);
}

describe('a process killed between loading and sending', () => {
  it('loses nothing: the next process on the same file sends exactly those deliveries, with the same webhook-ids', async () => {
    const database = join(dir, 'crash.sqlite');
    const receiver = await Receiver.start();
    const written = await loadAndKill(database, receiver);
    // 3 person.identified (ada on two sites, bob on one) and 3 person.activity (one per person and site).
    expect(written.deliveryIds).toHaveLength(6);
    expect(receiver.received).toHaveLength(0);

    const { api, clock } = await hookedApi({ database });
    try {
      await api.webhooks.deliverDue();
      expect(receiver.received.map((r) => r.headers['webhook-id']).sort()).toEqual([...written.deliveryIds].sort());
      for (const got of receiver.received) expect(verifyAt(written.secret, got, clock.now())).toBeTruthy();
      expect(receiver.received.map((r) => r.json.event).sort()).toEqual(['person.activity', 'person.activity', 'person.activity', 'person.identified', 'person.identified', 'person.identified']);
      await api.webhooks.deliverDue();
      expect(receiver.received).toHaveLength(6);
    } finally {
      await api.close();
      await receiver.close();
    }
  }, 90_000);

  it('holds claims that expire: deliveries a killed process was sending go out again after their lease, with the same webhook-ids', () => claimsExpire('send'), 90_000);

  // Claims hold on the system clock: moving the API's clock neither lengthens nor shortens them.
  it('holds claims on the system clock: those of a process killed after its clock was moved ahead run out after their lease all the same', () => claimsExpire('send-ahead'), 90_000);
});

/**
 * Kills a process holding claims (`mode` as the child takes it), then checks that another process
 * on the file leaves them alone until their lease has run out on the lease clock, then sends them.
 */
async function claimsExpire(mode: 'send' | 'send-ahead'): Promise<void> {
  const database = join(dir, `${mode}.sqlite`);
  const receiver = await Receiver.start();
  receiver.fallback = 'hang';
  const written = await loadAndKill(database, receiver, mode);
  const claimed = new Set(receiver.received.map((r) => r.headers['webhook-id']));
  expect(claimed.size).toBeGreaterThan(0);
  receiver.received.length = 0;
  receiver.fallback = { status: 200 };

  const { api, clock, leaseClock } = await hookedApi({ database });
  try {
    // The dead process's claims (60 s by default) still hold: only what it had not claimed goes now.
    await api.webhooks.deliverDue();
    const first = receiver.received.map((r) => r.headers['webhook-id']);
    expect(first.filter((id) => claimed.has(id))).toEqual([]);
    // It claimed 4 of the 6 (the per-endpoint bound) in one statement before sending any.
    expect(first).toHaveLength(2);
    clock.advance(60);
    leaseClock.advance(60);
    await api.webhooks.deliverDue();
    const all = receiver.received.map((r) => r.headers['webhook-id']);
    expect([...all].sort()).toEqual([...written.deliveryIds].sort());
    for (const got of receiver.received) expect(verifyAt(written.secret, got, clock.now())).toBeTruthy();
  } finally {
    await api.close();
    await receiver.close();
  }
}
