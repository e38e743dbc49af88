import { toHex } from '../auth/api-key.ts';
import type { Db } from './schema.ts';

/** The signing secret kept in the database, created on first use so cursors survive restarts. */
export async function loadOrCreateSecret(db: Db): Promise<string> {
  const fresh = toHex(crypto.getRandomValues(new Uint8Array(32)));
  await db.insertInto('meta').values({ key: 'signing_secret', value: fresh }).onConflict((oc) => oc.doNothing()).execute();
  const row = await db.selectFrom('meta').select('value').where('key', '=', 'signing_secret').executeTakeFirstOrThrow();
  return row.value;
}
