import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';

/**
 * Vitest global setup for the real-server backend: every world of this run creates its schema
 * under one run prefix, and the schemas are dropped together once all test files are done.
 * (Dropping a world's schema as soon as it closed once raced with the other workers' migrations,
 * when Kysely's migrator listed every schema's tables; ours looks only at its own schema. Dropping
 * at the end is still the simpler rule: a multi-process test's children may hold connections.)
 */
export default function setup(project: TestProject): (() => Promise<void>) | undefined {
  const url = project.config.env?.VI_TEST_POSTGRES_URL ?? process.env.VI_TEST_POSTGRES_URL;
  if (!url) return undefined;
  // Set before the workers start, so each inherits it.
  const prefix = `vi_${randomBytes(4).toString('hex')}_`;
  process.env.VI_TEST_SCHEMA_PREFIX = prefix;
  return async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>(`select nspname as name from pg_namespace where starts_with(nspname, $1)`, [prefix]);
      for (const { name } of rows) await client.query(`drop schema "${name}" cascade`);
    } finally {
      await client.end();
    }
  };
}
