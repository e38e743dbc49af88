import type { Api } from '../../core/index.ts';
import { DemoSimulator, runSimulation, type Simulation } from '../demo/simulate.ts';
import { configureEndpoint, type ServeWebhookFlags } from './serve-flags.ts';

/** Default seconds between simulated ticks, and people per tick. */
export const SIMULATE_EVERY = 5;
export const SIMULATE_PEOPLE = 3;

/**
 * What `serve` does with its webhook flags once listening: sets up the endpoint (printing where
 * deliveries go and how to check them) and starts `--simulate`. Resolves with what stops it.
 */
export async function startServeWebhooks(api: Api, accountId: string, flags: ServeWebhookFlags, seed: number): Promise<Simulation | undefined> {
  const endpoint = await configureEndpoint(api, accountId, flags);
  if (endpoint) {
    console.log(`Webhooks: ${endpoint.events.join(', ')} to ${endpoint.url} (endpoint ${endpoint.id})`);
    const secret = endpoint.generatedSecret ?? flags.webhookSecret;
    if (endpoint.generatedSecret) console.log(`  generated secret: ${endpoint.generatedSecret}`);
    console.log(`  check them: visitor-intelligence webhooks listen --port ${new URL(endpoint.url).port || '80'} --secret ${secret}`);
  }
  if (!flags.simulate) return undefined;
  const every = flags.simulateEvery ?? SIMULATE_EVERY;
  const people = flags.simulatePeople ?? SIMULATE_PEOPLE;
  // A new seed each start, so a restarted simulation never reuses an earlier run's ids.
  const simulator = new DemoSimulator(api.admin, accountId, () => api.clock.now(), { newPeople: people, returning: Math.max(1, Math.ceil(people / 2)), seed: (seed ^ Date.now()) >>> 0 });
  console.log(`Simulating: ${people} new people and some return visits every ${every} s, through the admin loading path`);
  return runSimulation(simulator, every, (result) => {
    if (result instanceof Error) console.error(`simulate: ${result.message}`);
    else console.log(`simulate: ${result.newPeople} new people, ${result.returning} returning, ${result.events} events`);
  });
}
