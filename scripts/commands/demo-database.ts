import { existsSync, renameSync, rmSync } from 'node:fs';
import type { Api } from '../../adapters/node/index.ts';
import { isPostgresUrl } from '../../adapters/shared/postgres.ts';
import { seedDemo } from '../demo/seed.ts';
import { terminalProgress } from '../demo/progress.ts';
import { DEMO_ACCOUNT_ID, ensureDemoKeys } from '../demo-keys.ts';
import { loadRuntime } from '../runtime.ts';
import { databaseError, openForAdmin } from './database.ts';
import { FileLock } from './file-lock.ts';
import { CliError, reason } from './errors.ts';

/** What a demo database was seeded with, kept in its `meta` table. */
export interface DemoRecord {
  seed: number;
  people: number;
  anchor: number;
}

/** The options of a new demo database; the anchor defaults to the moment of seeding. */
export interface DemoParameters {
  seed: number;
  people: number;
  anchor?: number;
}

/**
 * Seeds a new demo database beside `path` and moves it into place only once complete, so a failed
 * seed never leaves a half-filled file. Processes starting at once take turns on
 * `<path>.seeding.lock` ({@link FileLock}); returns whether this process seeded it.
 */
export async function createDemoDatabase(path: string, parameters: DemoParameters): Promise<boolean> {
  const partial = `${path}.seeding`;
  const lockPath = `${partial}.lock`;
  let lock: FileLock | null | undefined;
  let opened: Awaited<ReturnType<typeof openForAdmin>> | undefined;
  try {
    const { openDatabase } = await loadRuntime();
    lock = await FileLock.take(lockPath, openDatabase, () => console.log(`Another process is seeding ${path}; waiting for it…`), () => existsSync(path));
    if (!lock || existsSync(path)) return false;
    removePartial(partial);
    opened = await openForAdmin(partial);
    const record = await seedInto(opened.api, newRecord(opened.api, parameters));
    await opened.api.db.insertInto('meta').values({ key: 'demo', value: JSON.stringify(record) }).execute();
    await opened.close();
    opened = undefined;
    renameSync(partial, path);
    return true;
  } catch (error) {
    await opened?.close().catch(() => undefined);
    // Only the lock's holder touches the partial file: without the lock, it may be another process's seed.
    if (lock) {
      try {
        removePartial(partial);
      } catch {
        // Nothing could be created there in the first place.
      }
    }
    if (error instanceof CliError) throw new CliError(error.message.split(lockPath).join(path).split(partial).join(path));
    // A file system refusal (no such folder, not a folder, no permission, read-only) names the path.
    if (typeof (error as { code?: unknown }).code === 'string' && 'syscall' in (error as object)) {
      throw new CliError(`--db ${path} cannot be created: ${reason(error)}`);
    }
    if (lock === undefined) throw databaseError(path, error);
    throw error;
  } finally {
    // The lock file goes once the database is in place: whoever takes the lock later finds it there.
    await lock?.release({ remove: existsSync(path) });
  }
}

/**
 * Seeds the demo account into an open database and issues its keys; the caller records the
 * parameters. Loading is idempotent, so seeding again over a cut-off seed gives the same data.
 */
async function seedInto(api: Api, record: DemoRecord): Promise<DemoRecord> {
  await api.admin.createAccount({ id: DEMO_ACCOUNT_ID, name: 'Demo Partner' });
  const progress = terminalProgress('Seeding demo data');
  try {
    const counts = await seedDemo(api.admin, DEMO_ACCOUNT_ID, record, (p) => progress.update(p));
    progress.stop();
    console.log(`Seeded ${counts.sites} sites, ${counts.companies} companies, ${counts.people} people and ${counts.events} events.`);
  } finally {
    progress.stop();
  }
  await ensureDemoKeys(api, record.seed);
  return record;
}

/** The record of a new seed: the anchor defaults to the moment of seeding. */
function newRecord(api: Api, parameters: DemoParameters): DemoRecord {
  return { seed: parameters.seed, people: parameters.people, anchor: parameters.anchor ?? api.clock.now() };
}

/** The `meta` key of a seed under way in a PostgreSQL database, holding its parameters. */
const SEEDING = 'demo_seeding';

/**
 * Seeds a PostgreSQL database in place, once, however many processes start on it at once: each
 * writes its parameters under one `meta` key, then locks that row through the seed, so the others
 * wait and then find the demo recorded. A seeder that dies releases the row; the next seeds again.
 */
async function seedInPlace(api: Api, parameters: DemoParameters): Promise<DemoRecord> {
  const claimed = await api.db
    .insertInto('meta')
    .values({ key: SEEDING, value: JSON.stringify(newRecord(api, parameters)) })
    .onConflict((oc) => oc.column('key').doNothing())
    .returning('key')
    .executeTakeFirst();
  if (!claimed) console.log('Another process is seeding this database; waiting for it…');
  return api.db.transaction().execute(async (trx) => {
    const held = await trx.selectFrom('meta').select('value').where('key', '=', SEEDING).forUpdate().executeTakeFirst();
    const done = await trx.selectFrom('meta').select('value').where('key', '=', 'demo').executeTakeFirst();
    if (done) {
      await trx.deleteFrom('meta').where('key', '=', SEEDING).execute();
      return JSON.parse(done.value) as DemoRecord;
    }
    const record = held ? (JSON.parse(held.value) as DemoRecord) : newRecord(api, parameters);
    await seedInto(api, record);
    await trx.insertInto('meta').values({ key: 'demo', value: JSON.stringify(record) }).execute();
    await trx.deleteFrom('meta').where('key', '=', SEEDING).execute();
    return record;
  });
}

function removePartial(partial: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(partial + suffix, { force: true });
}

/** The demo parameters a database was seeded with; a database without them is refused in one line. */
export async function readDemoRecord(api: Api, path: string, seedWith?: DemoParameters): Promise<DemoRecord> {
  const row = await api.db.selectFrom('meta').select('value').where('key', '=', 'demo').executeTakeFirst();
  if (!row && seedWith && isPostgresUrl(path)) return seedInPlace(api, seedWith);
  if (!row) throw new CliError(`--db ${path} holds no demo data (it was not made by seed or serve); point --db at another file`);
  return JSON.parse(row.value) as DemoRecord;
}

/** Whether a database file is there to reuse; a PostgreSQL server's database always is (it is seeded in place when empty). */
export const databaseExists = (path: string): boolean => isPostgresUrl(path) || existsSync(path);
