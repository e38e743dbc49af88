import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { RUNTIMES, runtimeCommand, type Runtime } from '../../scripts/runtime-command.ts';
import { stop } from '../cli/bin.ts';
import { activityPayload, misencoded, post, SECRET, signed } from '../webhook-tools/signed.ts';

/**
 * The harness judges signatures with the Standard Webhooks reference library (a CommonJS package
 * with CommonJS dependencies), so `webhooks listen`, which judges with the harness, is run from
 * the sources under each runtime: a genuine delivery must pass and a misencoded one must not.
 */

const READY = /Listening for webhook deliveries on (\S+)/;

/** Starts `webhooks listen` under a runtime; resolves with its URL, its output and its exit. */
async function listenUnder(runtime: Runtime, args: string[]) {
  const [command, ...rest] = runtimeCommand(runtime, 'scripts/cli.ts');
  const child = spawn(command!, [...rest, 'webhooks', 'listen', '--port', '0', ...args], { env: { ...process.env, CI: 'true', NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const look = () => {
      const found = READY.exec(stderr);
      if (found) return resolve(found[1]!);
      if (child.exitCode !== null) return reject(new Error(`${runtime} listener exited early:\n${stdout}\n${stderr}`));
      setTimeout(look, 50);
    };
    look();
  });
  return { child, url, exited, stdout: () => stdout, stderr: () => stderr };
}

describe.concurrent.each([...RUNTIMES])('webhooks listen under %s', (runtime) => {
  it('answers 200 to a delivery signed as Standard Webhooks signs and 401 to one whose signature is misencoded', async () => {
    const listener = await listenUnder(runtime, ['--secret', SECRET, '--count', '2', '--json']);
    try {
      const genuine = activityPayload('msg_genuine');
      expect((await post(listener.url, genuine)).status).toBe(200);
      const misencodedPayload = activityPayload('msg_misencoded');
      const headers = signed('msg_misencoded', JSON.stringify(misencodedPayload));
      headers['webhook-signature'] = misencoded(headers['webhook-signature']!);
      expect((await post(listener.url, misencodedPayload, headers)).status).toBe(401);
      expect(await listener.exited, listener.stderr()).toBe(1);
      const lines = listener.stdout().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
      expect(lines.map((l) => [l.webhookId, l.status, l.problems])).toEqual([
        ['msg_genuine', 200, []],
        ['msg_misencoded', 401, ['webhooks.signature: no signature matches the secret']],
      ]);
    } finally {
      await stop(listener.child, 'SIGKILL');
    }
  }, 120_000);
});
