/**
 * `npm start`: serves the API from a SQLite file filled with seeded demo data.
 *
 *   npm start -- --port 8787 --db ./data/demo.sqlite --seed 42 --people 2000 --keys-out keys.json
 */
import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Api } from '../core/index.ts';
import { parseIsoInstant } from '../core/time/iso.ts';
import { loadRuntime } from './runtime.ts';
import { seedDemo } from './demo/seed.ts';
import { terminalProgress } from './demo/progress.ts';
import { DEMO_ACCOUNT_ID, ensureDemoKeys, type DemoKeys } from './demo-keys.ts';

const USAGE = `Usage: npm start -- [--port N] [--host H] [--db FILE] [--seed N] [--people N] [--anchor TIME] [--keys-out FILE]

  --port      port to listen on; 0 takes a free one (default: $PORT or 8787)
  --host      address to bind (default 127.0.0.1)
  --db        SQLite file; created and seeded when missing, reused when present (default ./data/demo.sqlite)
  --seed      seed of the demo data and the demo keys (default 42)
  --people    number of demo people (default 2000)
  --anchor    the demo's "now", ISO 8601 (default: when the database is seeded); same seed and anchor, same data
  --keys-out  write {"baseUrl","accountKey","scopedKeys":[...]} as JSON to this file`;

interface DemoRecord {
  seed: number;
  people: number;
  anchor: number;
}

/** Parses the command line, failing with the usage text on anything unknown. */
function readOptions() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string' },
        host: { type: 'string', default: '127.0.0.1' },
        db: { type: 'string', default: './data/demo.sqlite' },
        seed: { type: 'string', default: '42' },
        people: { type: 'string', default: '2000' },
        anchor: { type: 'string' },
        'keys-out': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (error) {
    fail(`${(error as Error).message}\n\n${USAGE}`);
  }
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  return {
    port: wholeNumber('--port', values.port ?? process.env.PORT ?? '8787', 0, 65535),
    host: values.host,
    db: values.db,
    seed: wholeNumber('--seed', values.seed, 0, 2 ** 31 - 1),
    people: wholeNumber('--people', values.people, 1, 1_000_000),
    anchor: values.anchor === undefined ? undefined : instant('--anchor', values.anchor),
    keysOut: values['keys-out'],
  };
}

const runtime = await loadRuntime();

/** Seeds a new database file beside the target and moves it into place only once complete. */
async function createDemoDatabase(path: string, seed: number, people: number, anchor: number | undefined): Promise<void> {
  const partial = `${path}.seeding`;
  for (const suffix of ['', '-wal', '-shm']) rmSync(partial + suffix, { force: true });
  const api = await runtime.createApi({ database: partial });
  const record: DemoRecord = { seed, people, anchor: anchor ?? api.clock.now() };
  await api.admin.createAccount({ id: DEMO_ACCOUNT_ID, name: 'Demo Partner' });
  const progress = terminalProgress('Seeding demo data');
  try {
    const counts = await seedDemo(api.admin, DEMO_ACCOUNT_ID, record, (p) => progress.update(p));
    progress.stop();
    console.log(`Seeded ${counts.sites} sites, ${counts.companies} companies, ${counts.people} people and ${counts.events} events.`);
  } catch (error) {
    progress.stop();
    throw error;
  }
  await api.db.insertInto('meta').values({ key: 'demo', value: JSON.stringify(record) }).execute();
  await api.close();
  renameSync(partial, path);
}

/** The demo parameters a database was seeded with. */
async function readDemoRecord(api: Api, path: string): Promise<DemoRecord> {
  const row = await api.db.selectFrom('meta').select('value').where('key', '=', 'demo').executeTakeFirst();
  if (!row) fail(`${path} exists but holds no demo data; point --db at another file.`);
  return JSON.parse(row.value) as DemoRecord;
}

async function main(): Promise<void> {
  const options = readOptions();
  if (!existsSync(options.db)) await createDemoDatabase(options.db, options.seed, options.people, options.anchor);
  const api = await runtime.createApi({ database: options.db });
  const demo = await readDemoRecord(api, options.db);
  if (demo.seed !== options.seed || demo.people !== options.people) {
    console.log(`Reusing ${options.db} (seed ${demo.seed}, ${demo.people} people); delete it to seed anew.`);
  }
  const keys = await ensureDemoKeys(api, demo.seed);
  const server = await runtime.serve(api, { port: options.port, hostname: options.host });
  report(server.url, keys, options.keysOut, runtime.name);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: finishing open requests and closing the database…`);
    await server.close().catch(() => undefined);
    // Pauses running exports (they resume on the next start) and closes the database,
    // which checkpoints the WAL into one consistent file.
    await api.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

function report(baseUrl: string, keys: DemoKeys, keysOut: string | undefined, runtimeName: string): void {
  console.log(`\nVisitor Intelligence API listening on ${baseUrl} (${runtimeName})`);
  console.log(`\nAccount key (reads everything):\n  ${keys.accountKey}`);
  console.log('\nDomain-scoped keys (each reads one client site):');
  for (const k of keys.scopedKeys) console.log(`  ${k.domain.padEnd(28)} ${(k.clientRef ?? '-').padEnd(14)} ${k.key}`);
  console.log(`\nTry:\n  curl -s -H 'X-API-Key: ${keys.accountKey}' '${baseUrl}/v1/people?limit=2'\n`);
  if (keysOut) {
    writeFileSync(keysOut, `${JSON.stringify({ baseUrl, ...keys }, null, 2)}\n`);
    console.log(`Keys written to ${keysOut}`);
  }
}

function wholeNumber(flag: string, text: string, min: number, max: number): number {
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) fail(`${flag} must be a whole number from ${min} to ${max}, not ${JSON.stringify(text)}`);
  return n;
}

function instant(flag: string, text: string): number {
  const ms = parseIsoInstant(text);
  if (ms === null) fail(`${flag} must be an ISO 8601 time such as 2026-11-20T12:00:00Z, not ${JSON.stringify(text)}`);
  return ms;
}

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
