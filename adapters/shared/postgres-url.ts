/**
 * The parameters of a `postgres://` URL that the API reads itself, the names Prisma gave them (so
 * a URL written for one tool works in the other), taken off before `pg` sees the rest:
 * - `schema=NAME`: the schema every table lives in, named in each statement rather than set on
 *   the session (a pooler in transaction mode refuses or drops session settings);
 * - `pgbouncer=true`: every statement sent unnamed, for a pooler that cannot keep named ones
 *   (PgBouncer before 1.21, or with `max_prepared_statements` at 0).
 */
export interface PostgresUrl {
  /** The URL as `pg` takes it: the same, without the parameters above. */
  connectionString: string;
  schema?: string;
  /** Whether statements may be prepared under a name (not with `pgbouncer=true`). */
  namedStatements: boolean;
}

/** Reads a `postgres://` URL's own parameters; a value it cannot use is an error naming the parameter. */
export function parsePostgresUrl(url: string): PostgresUrl {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not a URL `URL` can read: `pg` reports it as it would.
    return { connectionString: url, namedStatements: true };
  }
  const params = parsed.searchParams;
  if (!params.has('schema') && !params.has('pgbouncer')) return { connectionString: url, namedStatements: true };
  const schema = params.get('schema') ?? undefined;
  if (schema !== undefined && schema.length === 0) throw new Error('the URL parameter schema names no schema: give schema=NAME, or leave it out for the role\'s search_path');
  const pgbouncer = params.get('pgbouncer') ?? 'false';
  if (pgbouncer !== 'true' && pgbouncer !== 'false') throw new Error(`the URL parameter pgbouncer must be true or false, not ${JSON.stringify(pgbouncer)}`);
  params.delete('schema');
  params.delete('pgbouncer');
  return { connectionString: parsed.toString(), ...(schema === undefined ? {} : { schema }), namedStatements: pgbouncer === 'false' };
}
