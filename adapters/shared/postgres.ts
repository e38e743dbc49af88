import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient } from 'kysely';
import type { Pool, PoolClient } from 'pg';
import type { Database } from '../../core/index.ts';
import { TablesInSchema } from '../../core/store/in-schema.ts';
import { OutageLog } from './postgres-outage.ts';
import { statementNamesOf, statementSender } from './postgres-statements.ts';
import { parsePostgresUrl } from './postgres-url.ts';

/** Whether a `database` option names a PostgreSQL server rather than a SQLite file. */
export function isPostgresUrl(database: string): boolean {
  return /^postgres(ql)?:\/\//i.test(database);
}

/** Whether a value is a `pg` pool (or anything with its shape) rather than a Kysely instance. */
export function isPgPool(value: unknown): value is Pool {
  return typeof value === 'object' && value !== null && typeof (value as Pool).connect === 'function' && typeof (value as Pool).end === 'function' && !('selectFrom' in value);
}

/** Postgres type ids whose text `pg` hands over as strings: `bigint` (counts, keys, epoch seconds) and `numeric` (sums). */
const INT8 = 20;
const NUMERIC = 1700;

/**
 * Kysely over a `pg` pool, reading `bigint` and `numeric` as numbers (all well within 2^53), per
 * query so a host's pool keeps its own settings. A lost connection becomes `DatabaseUnavailable`,
 * and every connection listens for its own errors, since an unheard `'error'` ends the process.
 */
export async function kyselyOverPool(pool: Pool, outages = new OutageLog(), { namedStatements = true } = {}): Promise<Kysely<Database>> {
  const { default: pg } = await import('pg');
  const types = { getTypeParser: (oid: number, format?: 'text' | 'binary') => (oid === INT8 || oid === NUMERIC ? Number : pg.types.getTypeParser(oid, format)) };
  const clients = new WeakMap<PoolClient, PostgresPoolClient>();
  const names = namedStatements ? statementNamesOf(pool) : undefined;
  // On every checkout, since a host's pool may hold connections made before us. A request that meets a dead connection reports the outage.
  const heard = new WeakSet<PoolClient>();
  pool.on('acquire', (client) => {
    if (!heard.has(client)) client.on('error', () => undefined), heard.add(client);
  });
  const numbers: PostgresPool = {
    async connect() {
      const client = await pool.connect().catch((error) => Promise.reject(outages.failed(error)));
      let wrapped = clients.get(client);
      if (!wrapped) {
        const send = statementSender(client, names, { types });
        const query = async (text: unknown, values?: unknown[]) => {
          try {
            const result = await (typeof text === 'string' ? send(text, values) : client.query(text as never));
            outages.succeeded();
            return result;
          } catch (error) {
            throw outages.failed(error);
          }
        };
        wrapped = {
          query: query as unknown as PostgresPoolClient['query'],
          release: () => client.release(),
        };
        clients.set(client, wrapped);
      }
      return wrapped;
    },
    end: () => pool.end(),
  };
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool: numbers }) });
}

/**
 * Opens a pool on a `postgres://` URL and checks that the server answers, so a wrong URL or a
 * server that is down is one clear error at startup rather than a failure on the first request.
 * The URL's `schema` and `pgbouncer` parameters are the API's (see postgres-url.ts).
 */
export async function openPostgres(url: string, outages = new OutageLog()): Promise<Kysely<Database>> {
  const { connectionString, schema, namedStatements } = parsePostgresUrl(url);
  const { default: pg } = await import('pg');
  // A server that does not answer is an error within seconds, not a request that hangs; keepalive notices a vanished peer.
  const pool = new pg.Pool({ connectionString, connectionTimeoutMillis: 5000, keepAlive: true });
  // An idle client's error (the server restarting) must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  try {
    const client = await pool.connect();
    client.release();
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new PostgresUnreachable(url, error, outages.name);
  }
  const db = await kyselyOverPool(pool, outages, { namedStatements });
  return schema === undefined ? db : db.withPlugin(new TablesInSchema(schema));
}

/** The PostgreSQL server named by a URL did not accept a connection. */
export class PostgresUnreachable extends Error {
  constructor(url: string, cause: unknown, name = 'PostgreSQL') {
    super(`cannot connect to ${name} at ${redacted(url)}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'PostgresUnreachable';
  }
}

/** How to name a `database` option in a log line: a SQLite path as it is, a URL without its password. */
export function databaseLabel(database: string): string {
  return isPostgresUrl(database) ? redacted(database) : database;
}

/** A URL without its password, fit for a log line. */
function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the given URL';
  }
}
