import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { generateWebhookSecret } from '../../adapters/node/index.ts';
import { ROOT, RUNTIMES, runtimeCommand } from '../../scripts/runtime-command.ts';
import { Receiver } from '../webhooks/receiver.ts';
import { verifyAt } from '../webhooks/setup.ts';

/** Runs the delivery script under a runtime; resolves with its exit code and output. */
function runScript(runtime: (typeof RUNTIMES)[number], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const [command, ...args] = runtimeCommand(runtime, 'test/runtimes/runtime-delivery.ts');
  const child = spawn(command!, args, { cwd: ROOT, env: { ...process.env, ...env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

describe.each([...RUNTIMES])('webhooks under %s', (runtime) => {
  it('deliver signed payloads that the reference verifier accepts, and the process exits once closed', async () => {
    const receiver = await Receiver.start();
    const secret = generateWebhookSecret();
    try {
      const { code, output } = await runScript(runtime, { HOOK_URL: receiver.url, HOOK_SECRET: secret });
      expect(code, output).toBe(0);
      expect(output).toContain(`{"runtime":"${runtime}","statuses":["delivered","delivered"]}`);
      const payloads = receiver.received.map((got) => verifyAt(secret, got, Number(got.headers['webhook-timestamp']) * 1000) as any);
      expect(payloads.map((p) => p.event).sort()).toEqual(['person.activity', 'person.identified']);
      const activity = payloads.find((p) => p.event === 'person.activity');
      expect(activity.data).toMatchObject({ person: { id: 'per_ada' }, eventCount: 2, truncated: false });
      expect(activity.data.events.map((e: any) => e.eventId)).toEqual(['evt_1', 'evt_2']);
    } finally {
      await receiver.close();
    }
  }, 120_000);
});
