import { existsSync, renameSync, rmSync } from 'node:fs';
import type { Api } from '../../adapters/node/index.ts';
import { isPostgresUrl } from '../../adapters/shared/postgres.ts';
import { seedDemo } from '../demo/seed.ts';
import { terminalProgress } from '../demo/progress.ts';
import { DEMO_ACCOUNT_ID } from '../demo-keys.ts';
import { openForAdmin } from './database.ts';
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
 * Seeds a new demo database beside `path` and moves it into place only once complete, so an
 * interrupted or failed seed never leaves a half-filled file (nor any file at all).
 */
export async function createDemoDatabase(path: string, parameters: DemoParameters): Promise<void> {
  const partial = `${path}.seeding`;
  let opened: Awaited<ReturnType<typeof openForAdmin>> | undefined;
  try {
    removePartial(partial);
    opened = await openForAdmin(partial);
    await seedInto(opened.api, parameters);
    await opened.close();
    opened = undefined;
    renameSync(partial, path);
  } catch (error) {
    await opened?.close().catch(() => undefined);
    try {
      removePartial(partial);
    } catch {
      // Nothing could be created there in the first place.
    }
    if (error instanceof CliError) throw new CliError(error.message.split(partial).join(path));
    // A file system refusal (no such folder, not a folder, no permission, read-only) names the path.
    if (typeof (error as { code?: unknown }).code === 'string' && 'syscall' in (error as object)) {
      throw new CliError(`--db ${path} cannot be created: ${reason(error)}`);
    }
    throw error;
  }
}

/** Seeds the demo account into an open, empty database and records the parameters in `meta`. */
async function seedInto(api: Api, parameters: DemoParameters): Promise<DemoRecord> {
  const record: DemoRecord = { seed: parameters.seed, people: parameters.people, anchor: parameters.anchor ?? api.clock.now() };
  await api.admin.createAccount({ id: DEMO_ACCOUNT_ID, name: 'Demo Partner' });
  const progress = terminalProgress('Seeding demo data');
  try {
    const counts = await seedDemo(api.admin, DEMO_ACCOUNT_ID, record, (p) => progress.update(p));
    progress.stop();
    console.log(`Seeded ${counts.sites} sites, ${counts.companies} companies, ${counts.people} people and ${counts.events} events.`);
  } finally {
    progress.stop();
  }
  await api.db.insertInto('meta').values({ key: 'demo', value: JSON.stringify(record) }).execute();
  return record;
}

function removePartial(partial: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(partial + suffix, { force: true });
}

/** The demo parameters a database was seeded with; a database without them is refused in one line. */
export async function readDemoRecord(api: Api, path: string, seedWith?: DemoParameters): Promise<DemoRecord> {
  const row = await api.db.selectFrom('meta').select('value').where('key', '=', 'demo').executeTakeFirst();
  // A PostgreSQL database is seeded in place (there is no file to build beside it and move in).
  if (!row && seedWith && isPostgresUrl(path)) return seedInto(api, seedWith);
  if (!row) throw new CliError(`--db ${path} holds no demo data (it was not made by seed or serve); point --db at another file`);
  return JSON.parse(row.value) as DemoRecord;
}

/** Whether a database file is there to reuse; a PostgreSQL server's database always is (it is seeded in place when empty). */
export const databaseExists = (path: string): boolean => isPostgresUrl(path) || existsSync(path);
