import type { Api } from '../../core/index.ts';
import { DemoSimulationSwitch } from '../demo/simulation-switch.ts';
import { configureEndpoint, type ServeWebhookFlags } from './serve-flags.ts';

/** Default seconds between simulated ticks, and people per tick. */
export const SIMULATE_EVERY = 5;
export const SIMULATE_PEOPLE = 3;

/**
 * `serve`'s simulated traffic, off until `--simulate` or `POST /_admin/simulation` turns it on;
 * each batch is reported on the console.
 */
export function simulationSwitch(accountId: string, flags: ServeWebhookFlags, now: () => number): DemoSimulationSwitch {
  const every = flags.simulateEvery ?? SIMULATE_EVERY;
  const people = flags.simulatePeople ?? SIMULATE_PEOPLE;
  return new DemoSimulationSwitch({
    accountId,
    everySeconds: every,
    newPeople: people,
    now,
    report: (event) => {
      if (event instanceof Error) console.error(`simulate: ${event.message}`);
      else if ('started' in event) console.log(`Simulating: ${people} new people and some return visits every ${every} s, through the admin loading path`);
      else if ('stopped' in event) console.log('Simulation stopped');
      else console.log(`simulate: ${event.newPeople} new people, ${event.returning} returning, ${event.events} events`);
    },
  });
}

/**
 * What `serve` does with its webhook flags once listening: sets up the endpoint (printing where
 * deliveries go and how to check them) and starts the simulation for `--simulate`.
 */
export async function startServeWebhooks(api: Api, accountId: string, flags: ServeWebhookFlags, simulation: DemoSimulationSwitch): Promise<void> {
  const endpoint = await configureEndpoint(api, accountId, flags);
  if (endpoint) {
    console.log(`Webhooks: ${endpoint.events.join(', ')} to ${endpoint.url} (endpoint ${endpoint.id})`);
    const secret = endpoint.generatedSecret ?? flags.webhookSecret;
    if (endpoint.generatedSecret) console.log(`  generated secret: ${endpoint.generatedSecret}`);
    console.log(`  check them: visitor-intelligence webhooks listen --port ${new URL(endpoint.url).port || '80'} --secret ${secret}`);
  }
  if (flags.simulate) simulation.start();
}
