/**
 * What every benchmark API server shares: the database file from the command line, limits high
 * enough that a load test never meets them, and the one line the suites wait for.
 */
import type { RunningServer } from '../../adapters/shared/with-database.ts';

/** Rate limits no load test reaches: the benchmark measures serving, not the 429 path. */
export const UNLIMITED = { accountPerHour: 1e9, scopedKeyPerHour: 1e9 };

/** `<runtime> bench/servers/<entry>.ts DB_FILE`: the SQLite file to serve. */
export function databaseArgument(): string {
  const db = process.argv[2];
  if (!db) {
    console.error('usage: <runtime> bench/servers/<entry>.ts DB_FILE');
    process.exit(2);
  }
  return db;
}

/** Prints `{"port":N}` (the line the suites wait for) and stops cleanly on SIGTERM/SIGINT. */
export function announce(server: Pick<RunningServer, 'port' | 'close'>, close: () => Promise<void> = async () => undefined): void {
  console.log(JSON.stringify({ port: server.port }));
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await server.close().catch(() => undefined);
    await close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}
