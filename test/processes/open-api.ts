/**
 * A child process for the migration tests: opens the API on the database given (migrating it),
 * reads the migrations applied, closes it and prints them as one JSON line.
 */
import { createApi } from '../../adapters/node/index.ts';

const api = await createApi({ database: process.argv[2]!, webhooks: { background: false } });
try {
  const applied = await api.db.selectFrom('kysely_migration' as never).select('name' as never).execute();
  console.log(JSON.stringify({ applied: (applied as { name: string }[]).map((r) => r.name).sort() }));
} finally {
  await api.close();
}
