import type { Command } from 'commander';
import { ensureDemoKeys } from '../demo-keys.ts';
import { checkDbPath, openForAdmin } from './database.ts';
import { createDemoDatabase, databaseExists } from './demo-database.ts';
import { CliError } from './errors.ts';
import { instant, wholeNumber } from './options.ts';

interface SeedFlags {
  db: string;
  seed: number;
  people: number;
  anchor?: number;
}

/** `seed`: creates and seeds a demo database without serving it. */
export function registerSeed(program: Command): void {
  program
    .command('seed')
    .description('create a SQLite file seeded with demo data (one account, its sites, companies, people, events and keys), without serving it')
    .requiredOption('--db <file>', 'the SQLite file to create; it must not exist yet')
    .option('--seed <n>', 'seed of the demo data and the demo keys', wholeNumber(0, 2 ** 31 - 1), 42)
    .option('--people <n>', 'number of demo people', wholeNumber(1, 1_000_000), 2000)
    .option('--anchor <time>', 'the demo\'s "now", ISO 8601 (default: now); same seed and anchor, same data', instant)
    .action((flags: SeedFlags) => seed(flags));
}

async function seed(flags: SeedFlags): Promise<void> {
  checkDbPath(flags.db);
  const exists = () => new CliError(`--db ${flags.db} already exists; delete it or name a new file`);
  if (databaseExists(flags.db)) throw exists();
  // Another process may have made it meanwhile.
  if (!(await createDemoDatabase(flags.db, flags))) throw exists();
  const { api, close } = await openForAdmin(flags.db);
  try {
    const keys = await ensureDemoKeys(api, flags.seed);
    console.log(`Created ${flags.db}. Account key (reads everything):\n  ${keys.accountKey}`);
    console.log(`Serve it with: visitor-intelligence serve --db ${flags.db}`);
  } finally {
    await close();
  }
}
