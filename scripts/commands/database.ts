import { existsSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import type { Api, RuntimeApiOptions } from '../../adapters/node/index.ts';
import { isPostgresUrl, PostgresUnreachable } from '../../adapters/shared/postgres.ts';
import { ReadDatabaseNotReady } from '../../core/store/read-replica.ts';
import { loadRuntime } from '../runtime.ts';
import { CliError, reason } from './errors.ts';

/** Stops with one line when `path` cannot be a database file: a directory, or (with `mustExist`) nothing at all. */
export function checkDbPath(path: string, { mustExist = false } = {}): void {
  // A postgres:// URL names a server, not a file: it is checked by connecting.
  if (isPostgresUrl(path)) return;
  if (existsSync(path) && statSync(path).isDirectory()) throw new CliError(`--db ${path} is a directory, not a database file`);
  if (mustExist && !existsSync(path)) {
    throw new CliError(`--db ${path} does not exist; create one with: visitor-intelligence seed --db ${path}`);
  }
  // A file where a folder of the path should be: said plainly, before anything is made beside it.
  for (let folder = dirname(resolve(path)); !existsSync(path) && folder !== dirname(folder); folder = dirname(folder)) {
    if (!existsSync(folder)) continue;
    if (!statSync(folder).isDirectory()) throw new CliError(`--db ${path} cannot be created: ENOTDIR: ${relative(process.cwd(), folder) || folder} is a file, not a folder`);
    break;
  }
}

/** The one line for a database that would not open or migrate, naming the path. */
export function databaseError(path: string, error: unknown): CliError {
  const text = reason(error);
  // PostgresUnreachable names the server without its password; other faults must not print the URL.
  if (error instanceof PostgresUnreachable || error instanceof ReadDatabaseNotReady) return new CliError(error.message);
  if (isPostgresUrl(path)) return new CliError(`the PostgreSQL database of --db cannot be used: ${text}`);
  if (/not a database|file is encrypted/i.test(text)) return new CliError(`--db ${path} is not a SQLite database`);
  if (/unable to open|cannot open|read-?only|permission|EACCES|EROFS/i.test(text)) {
    return new CliError(`--db ${path} cannot be opened or created: is its folder writable? (${text})`);
  }
  return new CliError(`--db ${path} cannot be used: ${text}`);
}

/** Opens the API over a database file with this runtime's adapter; any failure is one line naming the path. */
export async function openApi(path: string, options: Omit<RuntimeApiOptions, 'database'> = {}): Promise<Api> {
  const runtime = await loadRuntime();
  try {
    return await runtime.createApi({ ...options, database: path });
  } catch (error) {
    throw databaseError(path, error);
  }
}

/**
 * Opens a database for one administrative command (load, keys, seed). It does no background
 * work: a server may be running exports and sending webhooks from the same file, so this process
 * takes no export step (nor counts an interrupted attempt against a job), and leaves the
 * deliveries its loads queue to the server.
 */
export async function openForAdmin(path: string): Promise<{ api: Api; close(): Promise<void> }> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const api = await openApi(path, { exports: { pace: () => held }, webhooks: { background: false } });
  return {
    api,
    async close() {
      // Stopping first, then letting held runs go: each sees the runner stopped and returns.
      const closed = api.close();
      release();
      await closed;
    },
  };
}
