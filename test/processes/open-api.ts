/**
 * A child process for the migration tests: opens the API on the database given (migrating it),
 * reads the migrations applied, closes it and prints them as one JSON line.
 */
import { sql } from 'kysely';
import { createApi } from '../../adapters/node/index.ts';

const api = await createApi({ database: process.argv[2]!, webhooks: { background: false } });
try {
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(api.db);
  console.log(JSON.stringify({ applied: rows.map((r) => r.name) }));
} finally {
  await api.close();
}
