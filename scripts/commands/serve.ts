import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { InvalidArgumentError, type Command } from 'commander';
import { AdjustableClock } from '../../core/time/adjustable-clock.ts';
import type { CorsOptions } from '../../core/http/cors.ts';
import { DEMO_ACCOUNT_ID, ensureDemoKeys, type DemoKeys } from '../demo-keys.ts';
import { loadRuntime } from '../runtime.ts';
import { databaseLabel, isPostgresUrl } from '../../adapters/shared/postgres.ts';
import { checkDbPath, openApi } from './database.ts';
import { alignColumns } from './table.ts';
import { CliError } from './errors.ts';
import { createDemoDatabase, databaseExists, readDemoRecord } from './demo-database.ts';
import { collect, corsOrigin, instant, wholeNumber } from './options.ts';
import { ensurePortFree, listenError } from './port.ts';
import { checkWebhookFlags, webhookEvents, webhookSecret, webhookUrl, type ServeWebhookFlags } from '../webhooks/serve-flags.ts';
import { simulationSwitch, startServeWebhooks } from '../webhooks/serve-webhooks.ts';

interface ServeFlags extends ServeWebhookFlags {
  port?: number;
  host: string;
  db: string;
  readDb?: string;
  seed: number;
  people: number;
  anchor?: number;
  keysOut?: string;
  rateLimit?: number;
  cors?: string[];
  adminToken?: string;
  faults?: boolean;
  exportStepDelay?: number;
  exportLease?: number;
}

/** `serve`: the demo server (`npm start`), over a seeded SQLite file created on first run. */
export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('serve the API from a SQLite file or a PostgreSQL database, seeded with demo data when it holds none yet')
    .option('--port <n>', 'port to listen on; 0 takes a free one (default: $PORT or 8787)', wholeNumber(0, 65535))
    .option('--host <address>', 'address to bind; 0.0.0.0 listens on every interface (containers, other machines)', '127.0.0.1')
    .option('--db <file|url>', 'SQLite file (created and seeded when missing, reused when present) or postgres:// URL (seeded when it holds no demo)', process.env.DATABASE_URL || './data/demo.sqlite')
    .option('--read-db <url>', 'postgres:// URL of a streaming hot standby of --db to read pages, journeys, companies, stats and single resources from (keys, limits, exports, webhooks and admin stay on --db)', postgresUrl)
    .option('--seed <n>', 'seed of the demo data and the demo keys', wholeNumber(0, 2 ** 31 - 1), 42)
    .option('--people <n>', 'number of demo people', wholeNumber(1, 1_000_000), 2000)
    .option('--anchor <time>', 'the demo\'s "now", ISO 8601 (default: when the database is seeded); same seed and anchor, same data', instant)
    .option('--keys-out <file>', 'write {"baseUrl","accountKey","scopedKeys":[...],"adminToken"} as JSON to this file')
    .option('--rate-limit <n>', 'requests per hour, per account and per domain-scoped key (default 1000)', wholeNumber(1, 1_000_000_000))
    .option('--cors <origin>', 'let browser pages of this origin call the API (repeatable; https://*.app.example for its subdomains, * for any); off by default', collect(corsOrigin))
    .option('--admin-token <token>', 'the bearer token of the /_admin/ routes (default: a random one, printed and written to --keys-out)', adminToken)
    .option('--faults', 'let clients ask for errors and latency (Prefer: fault=…, delay=…) and admin fault rules; off by default')
    .option('--export-step-delay <ms>', 'slow exports down: wait this long before each step of an export job, so clients can watch jobs in processing (default 0)', wholeNumber(0, 3_600_000))
    .option('--export-lease <seconds>', 'how long an export job stays with a server that stopped answering before another server on the database takes it over (default 30)', wholeNumber(1, 86_400))
    .option('--webhook-url <url>', 'send webhook deliveries of the demo account to this URL (creates or updates its endpoint)', webhookUrl)
    .option('--webhook-secret <whsec_…>', "the endpoint's signing secret (default: generated and printed)", webhookSecret)
    .option('--webhook-events <kinds>', 'comma-separated: person.identified,person.activity (default both; person.identified is always sent)', webhookEvents)
    .option('--simulate', 'keep the demo alive: identify new people and add activity every few seconds', false)
    .option('--simulate-every <seconds>', 'seconds between simulated batches (default 5)', wholeNumber(1, 86_400))
    .option('--simulate-people <n>', 'new people per simulated batch (default 3)', wholeNumber(1, 10_000))
    .addHelpText('after', '\nExamples:\n  visitor-intelligence serve --port 8787 --keys-out keys.json\n  visitor-intelligence serve --host 0.0.0.0 --cors http://localhost:3000 --rate-limit 100')
    .action((flags: ServeFlags) => serve(flags));
}

async function serve(flags: ServeFlags): Promise<void> {
  const port = flags.port ?? portFromEnvironment();
  const cors: CorsOptions | undefined = flags.cors && { origins: flags.cors.includes('*') ? '*' : flags.cors };
  const rateLimits = flags.rateLimit === undefined ? undefined : { accountPerHour: flags.rateLimit, scopedKeyPerHour: flags.rateLimit };
  checkDbPath(flags.db);
  if (flags.readDb !== undefined && !isPostgresUrl(flags.db)) throw new CliError(`--read-db needs a postgres:// --db: ${flags.db} is a SQLite file, which has no read replicas`);
  checkWebhookFlags(flags);
  // Before seeding: a busy port must cost no time and leave no file behind.
  await ensurePortFree(flags.host, port);
  if (!databaseExists(flags.db)) await createDemoDatabase(flags.db, flags);
  const token = flags.adminToken ?? randomBytes(24).toString('hex');
  const slowExports = new AbortController();
  const exports = {
    ...(flags.exportStepDelay ? { pace: pausing(flags.exportStepDelay, slowExports.signal) } : {}),
    // A job whose server died is looked for every lease or 2 s, whichever is shorter.
    ...(flags.exportLease ? { leaseSeconds: flags.exportLease, pollIntervalMs: Math.min(2000, flags.exportLease * 1000) } : {}),
  };
  // A clock the admin routes can move forward (and a reset takes back).
  const clock = new AdjustableClock();
  // Off until --simulate (below) or POST /_admin/simulation turns it on.
  const simulation = simulationSwitch(DEMO_ACCOUNT_ID, flags, () => clock.now());
  const api = await openApi(flags.db, { rateLimits, cors, clock, admin: { token, simulation }, faults: flags.faults === true, exports, readDatabase: flags.readDb });
  const demo = await readDemoRecord(api, flags.db, flags).catch(async (error) => {
    await api.close();
    throw error;
  });
  simulation.attach(api.admin, demo.seed);
  if (demo.seed !== flags.seed || demo.people !== flags.people) {
    console.log(`Reusing ${databaseLabel(flags.db)} (seed ${demo.seed}, ${demo.people} people); delete it to seed anew.`);
  }
  const keys = await ensureDemoKeys(api, demo.seed);
  // What POST /_admin/reset goes back to: the file as this server found it, with its demo keys (taken
  // again below once --webhook-url's endpoint is set up, so a reset is possible from the first request).
  await api.saveBaseline();
  // The first reads show the demo just seeded: the read database has replayed it (or is said to lag).
  if (!(await api.catchUpReads())) console.log('The read database has not replayed the demo yet: reads show it once it catches up.');
  const runtime = await loadRuntime();
  const server = await runtime.serve(api, { port, hostname: flags.host }).catch(async (error) => {
    await api.close();
    throw listenError(flags.host, port, error);
  });
  report(server.url, keys, flags.keysOut, runtime.name, { rateLimit: flags.rateLimit, cors: flags.cors, adminToken: token, faults: flags.faults === true, readDb: flags.readDb });
  await startServeWebhooks(api, DEMO_ACCOUNT_ID, flags, simulation);
  // Once more with --webhook-url's endpoint set up, so a reset keeps it.
  if (flags.webhookUrl !== undefined) await api.saveBaseline();

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: finishing open requests and closing the database…`);
    await simulation.stop();
    await server.close().catch(() => undefined);
    // Pauses running exports (they resume on the next start) and closes the database,
    // which checkpoints the WAL into one consistent file. Exports waiting out --export-step-delay
    // are let go once the runner has stopped, so they stop at once.
    const closed = api.close();
    slowExports.abort();
    await closed;
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

/** An export pace that waits `ms` before each step, or until `signal` aborts (a step after a timer needs no further yield). */
function pausing(ms: number, signal: AbortSignal): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done);
    });
}

/** $PORT when set (as hosting platforms do), else 8787. */
function portFromEnvironment(): number {
  const text = process.env.PORT ?? '8787';
  if (!/^\d+$/.test(text) || Number(text) > 65535) throw new CliError(`$PORT must be a port number from 0 to 65535, not ${JSON.stringify(text)}`);
  return Number(text);
}

/** A commander parser for `--read-db`: a server's URL, never a file (SQLite has no read replicas). */
function postgresUrl(text: string): string {
  if (!isPostgresUrl(text)) throw new InvalidArgumentError('Must be a postgres:// URL of a hot standby of --db.');
  return text;
}

/** A commander parser for `--admin-token`: at least 16 visible characters, no spaces. */
function adminToken(text: string): string {
  if (!/^[\x21-\x7e]{16,256}$/.test(text)) throw new InvalidArgumentError('Must be 16 to 256 visible ASCII characters without spaces.');
  return text;
}

function report(baseUrl: string, keys: DemoKeys, keysOut: string | undefined, runtimeName: string, settings: { rateLimit?: number; cors?: string[]; adminToken: string; faults: boolean; readDb?: string }): void {
  console.log(`\nVisitor Intelligence API listening on ${baseUrl} (${runtimeName})`);
  if (settings.readDb) console.log(`Reads from the hot standby ${databaseLabel(settings.readDb)}`);
  if (settings.rateLimit !== undefined) console.log(`Hourly limit: ${settings.rateLimit} requests per account and per domain-scoped key`);
  if (settings.cors) console.log(`CORS: ${settings.cors.includes('*') ? 'any origin' : settings.cors.join(', ')}`);
  console.log(`\nAccount key (reads everything):\n  ${keys.accountKey}`);
  console.log('\nDomain-scoped keys (each reads its client domain and its subdomains):');
  for (const line of alignColumns(keys.scopedKeys.map((k) => [k.domain, k.clientRef ?? '-', k.key]), '  ')) console.log(line);
  console.log(`\nAdmin token (Authorization: Bearer …, for /_admin/ routes):\n  ${settings.adminToken}`);
  // The token rides in the fragment, which browsers never send: it stays out of every server's logs.
  console.log(`\nConsole (opens signed in; keep the link to yourself):\n  ${baseUrl}/_console/#token=${encodeURIComponent(settings.adminToken)}`);
  if (settings.faults) console.log('Fault injection: on (Prefer: fault=<code>, Prefer: delay=<ms>, POST /_admin/faults)');
  console.log(`\nTry:\n  curl -s -H 'X-API-Key: ${keys.accountKey}' '${baseUrl}/v1/people?limit=2'`);
  console.log(`  curl -s -X POST -H 'Authorization: Bearer ${settings.adminToken}' '${baseUrl}/_admin/reset'\n`);
  if (keysOut) {
    writeFileSync(keysOut, `${JSON.stringify({ baseUrl, ...keys, adminToken: settings.adminToken }, null, 2)}\n`);
    console.log(`Keys written to ${keysOut}`);
  }
}
