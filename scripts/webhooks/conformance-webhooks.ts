import type { Command } from 'commander';
import { secretProblem } from '../../core/webhooks/signing.ts';
import type { Check } from '../../harness/index.ts';
import { DeliveryCollector, webhookChecks } from '../../harness/webhooks/index.ts';
import { CliError } from '../commands/errors.ts';
import { collect, wholeNumber } from '../commands/options.ts';
import { listenError } from '../commands/port.ts';
import { listen, type Listener } from './listener.ts';

/** The conformance command's webhook flags, as parsed. */
export interface ConformanceWebhookFlags {
  webhookListen?: number;
  webhookHost: string;
  webhookSecret?: string[];
  webhookTimeout: number;
}

/** Adds `--webhook-listen`, `--webhook-host`, `--webhook-secret` and `--webhook-timeout` to the conformance command. */
export function addWebhookOptions(command: Command): Command {
  return command
    .option('--webhook-listen <port>', 'also receive webhook deliveries on this port and judge them (webhooks.* checks); point the implementation\'s endpoint at it', wholeNumber(0, 65535))
    .option('--webhook-host <address>', 'address the webhook receiver binds', '127.0.0.1')
    .option('--webhook-secret <whsec_…>', "the secret the implementation signs with (repeatable)", collect(String))
    .option('--webhook-timeout <seconds>', 'after the other checks, wait at most this long for a delivery of each kind', wholeNumber(1, 86_400), 60);
}

/**
 * Runs `run` with the webhook checks added when `--webhook-listen` was given: the receiver listens
 * from before the first check (deliveries the run causes count) until the report is made.
 */
export async function withWebhookChecks<T>(flags: ConformanceWebhookFlags, run: (extra: Check[]) => Promise<T>): Promise<T> {
  if (flags.webhookListen === undefined) {
    if (flags.webhookSecret) throw new CliError('--webhook-secret needs --webhook-listen (the port to receive deliveries on)');
    return run([]);
  }
  const secrets = flags.webhookSecret ?? [];
  if (secrets.length === 0) throw new CliError('--webhook-listen needs --webhook-secret: the whsec_… secret the implementation signs with');
  for (const secret of secrets) {
    const problem = secretProblem(secret);
    if (problem) throw new CliError(`--webhook-secret ${problem}`);
  }
  const collector = new DeliveryCollector({ secrets });
  let listener: Listener;
  try {
    listener = await listen(collector, flags.webhookHost, flags.webhookListen);
  } catch (error) {
    throw listenError(flags.webhookHost, flags.webhookListen, error);
  }
  console.error(`Receiving webhook deliveries on ${listener.url} (judged after the other checks, waiting up to ${flags.webhookTimeout} s)`);
  try {
    return await run(webhookChecks(collector, flags.webhookTimeout));
  } finally {
    await listener.close();
  }
}
