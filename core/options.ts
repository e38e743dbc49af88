import type { ApiOptions } from './api-types.ts';
import { normalizeOrigin } from './http/cors.ts';
import { dialectOf } from './store/dialect/index.ts';
import type { Db } from './store/schema.ts';

/**
 * Refuses, with a TypeError naming the option, what createApi cannot start with. The runtime
 * adapters call it before opening a database, so a refused start opens and starts nothing.
 */
export function checkApiOptions(options: Omit<ApiOptions, 'db'>): void {
  const token = options.admin?.token;
  if (options.admin && (typeof token !== 'string' || token.length < 16)) throw new TypeError('admin.token must be a string of at least 16 characters');
  const simulation = options.admin?.simulation;
  if (simulation !== undefined && !['state', 'start', 'stop'].every((m) => typeof (simulation as unknown as Record<string, unknown>)[m] === 'function')) {
    throw new TypeError('admin.simulation must have state(), start() and stop() methods');
  }
  const origins = options.cors?.origins;
  if (options.cors && origins !== '*') {
    if (!Array.isArray(origins)) throw new TypeError('cors.origins must be "*" or an array of origins');
    origins.forEach(normalizeOrigin);
  }
  for (const [name, value] of Object.entries(options.rateLimits ?? {})) {
    if (value !== undefined && !(Number.isSafeInteger(value) && value > 0)) throw new TypeError(`rateLimits.${name} must be a whole number of requests above 0, not ${String(value)}`);
  }
  for (const [name, value] of Object.entries(options.readWait ?? {})) {
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0)) throw new TypeError(`readWait.${name} must be a whole number of milliseconds, not ${String(value)}`);
  }
}

/**
 * Refuses a read database beside a database that cannot have one: a read database is a
 * PostgreSQL streaming standby, and SQLite has no such thing.
 */
export function checkReadDb(db: Db, readDb: Db | undefined): void {
  if (readDb === undefined) return;
  if (dialectOf(db).name !== 'postgres') throw new TypeError('readDb is for PostgreSQL: db is SQLite, which has no read replicas');
  if (dialectOf(readDb).name !== 'postgres') throw new TypeError('readDb must be a Kysely instance over PostgreSQL (a hot standby of db)');
}
